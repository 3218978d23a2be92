// Package deadlock ports Deadlock, Figure 4.6 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Two goroutines take two locks, nested, in opposite orders: "First" takes a
// then b, "Second" takes b then a. If First holds a and Second holds b, each
// waits forever for the lock the other holds: a potential lock-cycle deadlock.
// The fixed variant has both goroutines take the locks in the order a, b.
//
// Expected xbtest verdicts:
//   - TestDeadlock: lock-cycle (between First and Second, on a and b).
//   - TestDeadlockFixed: none.
package deadlock

import "sync"

// Locks holds the two lock objects of the figure.
type Locks struct {
	a, b sync.Mutex
}

// Run is the run method of Figure 4.6. With ab it takes a then b (thread
// "First"); otherwise it takes b then a (thread "Second"). The critical
// sections are empty.
func (l *Locks) Run(ab bool) {
	if ab {
		l.a.Lock()
		l.b.Lock()
		l.b.Unlock()
		l.a.Unlock()
	} else {
		l.b.Lock()
		l.a.Lock()
		l.a.Unlock()
		l.b.Unlock()
	}
}
