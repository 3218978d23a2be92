// Package memdeps splits increments into two critical sections, on every
// kind of shared location. Under ExitBlock-RW without sync dependencies
// (the thesis's exact algorithm) only the reported memory accesses make the
// blocks of two goroutines dependent, so the lost update is found only if
// the rewrite reports them.
package memdeps

import "sync"

var mu sync.Mutex

// split increments through get and set, each in its own critical section.
func split(get func() int, set func(int)) {
	mu.Lock()
	v := get()
	mu.Unlock()
	mu.Lock()
	set(v + 1)
	mu.Unlock()
}

// twice runs f on two goroutines and waits.
func twice(f func()) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

var global int

// Global increments a package-level variable.
func Global() int {
	global = 0
	twice(func() { split(func() int { return global }, func(v int) { global = v }) })
	return global
}

type box struct{ n int }

// Field increments a field through a pointer.
func Field() int {
	b := &box{}
	twice(func() { split(func() int { return b.n }, func(v int) { b.n = v }) })
	return b.n
}

// Captured increments a local captured by the goroutines.
func Captured() int {
	n := 0
	twice(func() { split(func() int { return n }, func(v int) { n = v }) })
	return n
}

// Elem increments a slice element.
func Elem() int {
	s := make([]int, 1)
	twice(func() { split(func() int { return s[0] }, func(v int) { s[0] = v }) })
	return s[0]
}

// Entry increments a map entry.
func Entry() int {
	m := map[string]int{}
	twice(func() { split(func() int { return m["k"] }, func(v int) { m["k"] = v }) })
	return m["k"]
}
