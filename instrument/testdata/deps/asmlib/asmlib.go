// Package asmlib has an assembly function and starts goroutines: its Go
// files are rewritten, its assembly is kept.
package asmlib

// AddAsync adds on another goroutine.
func AddAsync(a, b int64) int64 {
	ch := make(chan int64, 1)
	go func() { ch <- Add(a, b) }()
	return <-ch
}
