// Package cgolib uses cgo and starts a goroutine: it is left alone, and
// named.
package cgolib

// static int two(void) { return 2; }
import "C"

// Two returns 2, from C, on a goroutine of its own.
func Two() int {
	ch := make(chan int)
	go func() { ch <- int(C.two()) }()
	return <-ch
}
