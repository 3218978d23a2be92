// Package dep is a vendored dependency.
package dep

import "sync"

// Add adds.
func Add(a, b int) int { return a + b }

// Both runs f and g on two goroutines and waits for them.
func Both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f() }()
	go func() { defer wg.Done(); g() }()
	wg.Wait()
}
