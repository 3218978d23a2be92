// Package fences pins down what xbtest makes of the spellings of weak
// hardware that lock-free code uses (package lockfree's fences,
// -cas relaxed) and of races by design (//xbtest:racy): litmus-sized
// programs whose tests assert what the memory model forbids. See
// README.md for the verdict under each model.
package fences

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/xbtest/xbtest/lockfree"
)

// Cell is one shared word of each test.
type Cell struct {
	V int64 //xbtest:racy a litmus test's plain shared word
}

// both runs a and b as goroutines and waits for them.
func both(a, b func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a() }()
	go func() { defer wg.Done(); b() }()
	wg.Wait()
}

// MPRelaxedCAS is message passing with a CAS as the flag write (the digest's
// L5, Stopless's and Clover's copy step): it returns what the reader saw of
// the flag and of the data.
func MPRelaxedCAS() (flag, data int64) {
	var d, f Cell
	both(func() {
		d.V = 1
		atomic.CompareAndSwapInt64(&f.V, 0, 1)
	}, func() {
		flag = f.V
		data = d.V
	})
	return flag, data
}

// MPReleaseFence is message passing with a release fence between the two
// stores (L4r, Staccato's fixed yieldpoint).
func MPReleaseFence() (flag, data int64) {
	var d, f Cell
	both(func() {
		d.V = 1
		lockfree.ReleaseFence()
		f.V = 1
	}, func() {
		flag = f.V
		lockfree.AcquireFence()
		data = d.V
	})
	return flag, data
}

// SBReleaseFence is store buffering with release fences: they order
// nothing before a later load, so both loads may read 0 (under TSO and
// PSO).
func SBReleaseFence() (r0, r1 int64) {
	var x, y Cell
	both(func() {
		x.V = 1
		lockfree.ReleaseFence()
		r0 = y.V
	}, func() {
		y.V = 1
		lockfree.ReleaseFence()
		r1 = x.V
	})
	return r0, r1
}

// SBFence is store buffering with full fences: no relaxed outcome.
func SBFence() (r0, r1 int64) {
	var x, y Cell
	both(func() {
		x.V = 1
		lockfree.Fence()
		r0 = y.V
	}, func() {
		y.V = 1
		lockfree.Fence()
		r1 = x.V
	})
	return r0, r1
}

// SameAddressCAS stores 1 to a word and then CASes it from 1 to 2: even a
// relaxed CAS is ordered after the goroutine's earlier store to its own
// address (L6), so it succeeds. The other goroutine only makes the
// execution concurrent.
func SameAddressCAS() bool {
	var x, other Cell
	ok := false
	both(func() {
		x.V = 1
		ok = atomic.CompareAndSwapInt64(&x.V, 1, 2)
	}, func() {
		other.V = 1
	})
	return ok
}

// counter is incremented without synchronization on purpose.
type counter struct {
	n int //xbtest:racy the lost-update test's counter
}

// LostUpdate increments a racy counter from two goroutines and returns it:
// at access granularity (which the directive gives its accesses) the two
// read-increment-write sequences can interleave.
func LostUpdate() int {
	var c counter
	both(func() { c.n++ }, func() { c.n++ })
	return c.n
}

// unmarked is LostUpdate's counter without the directive.
type unmarked struct{ n int }

// LostUpdateUnmarked is LostUpdate on a counter without the directive: the
// race is a finding, and at synchronization granularity each goroutine's
// increment runs as one block.
func LostUpdateUnmarked() int {
	var c unmarked
	both(func() { c.n++ }, func() { c.n++ })
	return c.n
}

// OwnStoresThroughLibrary stores into a slice and a byte slice that
// another goroutine reads at the same time (a race by design, as in a
// litmus test, marked racy) and reads its own stores back through code xbtest does not
// rewrite: slices.Index, the builtin copy and a string conversion. A
// goroutine's loads always see its own stores, also on TSO and PSO (they
// forward from its store buffer): index 1, copied 9, text "x".
func OwnStoresThroughLibrary() (index, copied int, text string) {
	s := make([]int, 3)  //xbtest:racy the other goroutine looks at the slice being written
	b := make([]byte, 2) //xbtest:racy the same
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = s[1], b[0]
	}()
	s[1] = 7
	index = slices.Index(s, 7)
	s[2] = 9
	d := make([]int, 3)
	copy(d, s)
	copied = d[2]
	b[0] = 'x'
	text = string(b[:1])
	wg.Wait()
	return index, copied, text
}
