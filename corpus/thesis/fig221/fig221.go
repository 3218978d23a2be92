// Package fig221 ports the two threads of Figure 2.21 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Both threads run the same code on one monitor a: signal, wait, signal.
// Whichever thread waits first is woken by the other thread's first signal
// (the other thread must take a to signal, and can only do so after the first
// has released a by waiting), and it wakes the other in turn with its last
// signal. The program never deadlocks. The thesis uses it to show why
// ExitBlock-RWDD must not report a condition deadlock when a path ends with a
// thread waiting while another thread is delayed: such a report here would be
// false. Each wait is a single Wait, not a loop, exactly as in the figure.
//
// Expected xbtest verdict:
//   - TestFig221: none.
package fig221

import "sync"

// Monitor is the lock object a with its wait set (cond.L == &a).
type Monitor struct {
	a    sync.Mutex
	cond *sync.Cond
}

// NewMonitor returns the shared monitor of the figure.
func NewMonitor() *Monitor {
	m := new(Monitor)
	m.cond = sync.NewCond(&m.a)
	return m
}

// Thread is the code of both threads of Figure 2.21:
// synchronized (a) { a.notify(); a.wait(); a.notify(); }.
func (m *Monitor) Thread() {
	m.a.Lock()
	m.cond.Signal()
	m.cond.Wait()
	m.cond.Signal()
	m.a.Unlock()
}
