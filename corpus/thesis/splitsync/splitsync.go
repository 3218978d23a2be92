// Package splitsync ports SplitSync, Figure 4.2 (= Figure 1.1) of Bruening's
// thesis "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Two goroutines increment a shared counter. SplitIncrement reads the counter
// in one critical section and writes it back in a second one, so another
// goroutine can increment it in between and one increment is lost. Every
// access is made under the lock, so there is no data race: the bug is an
// atomicity violation. The assertion of the figure (the counter is unchanged
// when the second critical section starts) detects it.
//
// Expected xbtest verdicts:
//   - TestSplitSync: assertion ("shared var was modified").
//   - TestSplitSyncFixed (one critical section, Increment): none.
package splitsync

import "sync"

// Resource is the shared object of the figure; mu plays the role of the
// Java monitor of the Resource object.
type Resource struct {
	mu sync.Mutex
	x  int
}

// SplitIncrement is the run method of Figure 4.2: it increments r.x using two
// separate critical sections (the bug). It reports whether the invariant
// "r.x still holds the value read in the first critical section" held at the
// start of the second one; the increment is performed either way, as in the
// figure, where the assertion only notifies the tester.
func (r *Resource) SplitIncrement() (ok bool) {
	var y int
	r.mu.Lock() // A
	y = r.x
	r.mu.Unlock()

	r.mu.Lock() // B
	// invariant: r.x == y
	ok = r.x == y
	r.x = y + 1
	r.mu.Unlock()
	return ok
}

// Increment is the corrected version: the read and the write are in a single
// critical section, so the invariant always holds.
func (r *Resource) Increment() (ok bool) {
	r.mu.Lock()
	y := r.x
	// invariant: r.x == y
	ok = r.x == y
	r.x = y + 1
	r.mu.Unlock()
	return ok
}

// Value returns the current value of the counter.
func (r *Resource) Value() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.x
}
