// Package deadlockwait ports DeadlockWait, Figure 4.10 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Two goroutines use two locks a and b and a condition variable on b.
// "First" takes a, then b, and waits on the condition, which releases b but
// not a; "Second" takes and releases a, then takes b and signals. If First
// waits before Second has passed its critical section on a, Second blocks on
// a forever and nobody wakes First: a condition deadlock (one goroutine
// waiting, one blocked on a lock). If Second runs entirely before First
// waits, its signal is lost and First waits forever: also a condition
// deadlock. Only the schedules where Second releases a before First takes it
// and signals after First waits complete. The wait is a single Wait, not a
// loop, exactly as in the figure (Go's Cond.Wait has no spurious wake-ups).
//
// Expected xbtest verdict:
//   - TestDeadlockWait: deadlock (condition deadlock; not a lock cycle).
package deadlockwait

import "sync"

// Locks holds the two lock objects of the figure; bCond is the wait set of
// Java's monitor b (bCond.L == &b).
type Locks struct {
	a, b  sync.Mutex
	bCond *sync.Cond
}

// NewLocks returns the shared locks of the figure.
func NewLocks() *Locks {
	l := new(Locks)
	l.bCond = sync.NewCond(&l.b)
	return l
}

// Run is the run method of Figure 4.10. With ab (thread "First") it takes a
// and b and waits on b; otherwise (thread "Second") it passes through a, then
// signals b.
func (l *Locks) Run(ab bool) {
	if ab {
		l.a.Lock()
		l.b.Lock()
		l.bCond.Wait() // releases b, keeps a
		l.b.Unlock()
		l.a.Unlock()
	} else {
		l.a.Lock()
		l.a.Unlock()
		l.b.Lock()
		l.bCond.Signal()
		l.b.Unlock()
	}
}
