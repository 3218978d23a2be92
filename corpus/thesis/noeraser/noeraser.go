// Package noeraser ports NoEraser, Figure 4.4 (= Figure 2.2) of Bruening's
// thesis "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Two goroutines, "A" and "B", each read a shared counter under the lock and
// then increment it. If B reads 0, that is if B gets there before A has
// incremented, B increments without taking the lock: a violation of the
// mutual-exclusion locking discipline that a lockset detector (Eraser) sees
// only in the schedules where B increments before A. There is no assertion;
// the program always terminates.
//
// Expected xbtest verdict:
//   - TestNoEraser: race (on Resource.x, in the schedules where B's read sees 0).
package noeraser

import "sync"

// Resource is the shared object of the figure; mu plays the role of the
// Java monitor of the Resource object.
type Resource struct {
	mu sync.Mutex
	x  int
}

// Run is the run method of Figure 4.4 for the thread called name.
func (r *Resource) Run(name string) {
	var y int
	r.mu.Lock()
	y = r.x
	r.mu.Unlock()
	if y == 0 && name == "B" {
		r.x++ // the bug: no lock held
	} else {
		r.mu.Lock()
		r.x++
		r.mu.Unlock()
	}
}
