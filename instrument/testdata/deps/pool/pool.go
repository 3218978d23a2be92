// Package pool runs functions on goroutines of its own: a dependency that
// starts goroutines, rewritten by default.
package pool

import "sync"

// Run runs each of fs on a goroutine and waits for them all.
func Run(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}
