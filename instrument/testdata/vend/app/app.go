// Package app uses a vendored dependency.
package app

import (
	"sync"

	"example.com/dep"
)

// Pair holds two locks.
type Pair struct{ a, b sync.Mutex }

// AB takes a then b.
func (p *Pair) AB() { p.a.Lock(); p.b.Lock(); p.b.Unlock(); p.a.Unlock() }

// BA takes b then a.
func (p *Pair) BA() { p.b.Lock(); p.a.Lock(); p.a.Unlock(); p.b.Unlock() }

// Sum adds on another goroutine.
func Sum(a, b int) int {
	ch := make(chan int)
	go func() { ch <- dep.Add(a, b) }()
	return <-ch
}
