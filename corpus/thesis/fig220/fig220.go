// Package fig220 ports the two threads of Figure 2.20 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Both threads use one monitor a. Thread1 waits, then signals; Thread2
// signals, then waits. If Thread1 waits first, Thread2's signal wakes it and
// Thread1's signal later wakes Thread2. If Thread2 runs first, its signal is
// lost, it waits, and then Thread1 waits too: both are waiting and nobody is
// left to wake them, a condition deadlock. Each wait is a single Wait, not a
// loop, exactly as in the figure.
//
// Expected xbtest verdict:
//   - TestFig220: deadlock (condition deadlock; ExitBlock-RWDD reports it too).
package fig220

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

// Thread1 is Thread 1 of Figure 2.20: synchronized (a) { a.wait(); a.notify(); }.
func (m *Monitor) Thread1() {
	m.a.Lock()
	m.cond.Wait()
	m.cond.Signal()
	m.a.Unlock()
}

// Thread2 is Thread 2 of Figure 2.20: synchronized (a) { a.notify(); a.wait(); }.
func (m *Monitor) Thread2() {
	m.a.Lock()
	m.cond.Signal()
	m.cond.Wait()
	m.a.Unlock()
}
