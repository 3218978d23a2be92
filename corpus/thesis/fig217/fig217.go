// Package fig217 ports the two threads of Figure 2.17 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Thread1 takes a and, nested inside it, b. Thread2 takes a alone, then b
// and, nested inside it, a. If Thread2 has finished its first critical
// section, Thread1 holds a and Thread2 holds b, each waits for the other: a
// potential lock-cycle deadlock. None of the critical sections touch shared
// data, so ExitBlock with reverse lock chain analysis (exitblock-dd) finds the
// cycle (Figure 2.18), while the thesis's ExitBlock-RW (xbtest
// -sync-deps=false) prunes every schedule that reaches it (Figure 2.19).
// xbtest's default read/write sets count a lock enter as a write to the lock,
// which keeps those schedules.
//
// Expected xbtest verdict:
//   - TestFig217: lock-cycle (under exitblock-dd and the default;
//     ExitBlock-RW with -sync-deps=false is documented to miss it).
package fig217

import "sync"

// Locks holds the two lock objects of the figure.
type Locks struct {
	a, b sync.Mutex
}

// Thread1 is Thread 1 of Figure 2.17: synchronized (a) { synchronized (b) {} }.
func (l *Locks) Thread1() {
	l.a.Lock()
	l.b.Lock()
	l.b.Unlock()
	l.a.Unlock()
}

// Thread2 is Thread 2 of Figure 2.17: synchronized (a) {}, then
// synchronized (b) { synchronized (a) {} }.
func (l *Locks) Thread2() {
	l.a.Lock()
	l.a.Unlock()

	l.b.Lock()
	l.a.Lock()
	l.a.Unlock()
	l.b.Unlock()
}
