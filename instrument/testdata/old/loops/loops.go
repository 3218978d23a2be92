// Package loops is written in Go 1.12: no generics, and one loop variable
// per loop.
package loops

import (
	"sync"
	"sync/atomic"
	"time"
)

type item struct{ n int }

// Closures returns the values that closures created in a loop see after the
// loop: with Go 1.12 semantics they all see the last value.
func Closures() []int {
	var out []int
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	ch := make(chan item, 3)
	ch <- item{1}
	ch <- item{2}
	close(ch)
	for v := range ch {
		fs = append(fs, func() int { return v.n })
	}
	m := map[string]int{"a": 1, "b": 2}
	for k, v := range m {
		fs = append(fs, func() int { return len(k) * v })
	}
	for _, f := range fs {
		out = append(out, f())
	}
	return out
}

var hits int64

// Pipeline passes items through a select and counts them atomically.
func Pipeline(n int) int {
	in, out := make(chan item), make(chan item, n)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case it, ok := <-in:
				if !ok {
					close(out)
					return
				}
				atomic.AddInt64(&hits, 1)
				out <- item{it.n * 2}
			}
		}
	}()
	for i := 0; i < n; i++ {
		in <- item{i}
	}
	close(in)
	wg.Wait()
	total := 0
	for it := range out {
		total += it.n
	}
	// A channel of another package's type needs its wrappers to import it.
	d := make(chan time.Duration, 1)
	d <- time.Duration(total)
	return int(<-d)
}
