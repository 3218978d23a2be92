// Package deadlock3 ports Deadlock3, Figure 4.8 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Three goroutines each take two of three locks, nested: "First" takes a then
// b, "Second" b then c, "Third" c then a. If First holds a, Second holds b and
// Third holds c, none can proceed: a potential lock-cycle deadlock among three
// goroutines.
//
// Expected xbtest verdict:
//   - TestDeadlock3: lock-cycle (among First, Second and Third, on a, b and c).
package deadlock3

import "sync"

// Locks holds the three lock objects of the figure.
type Locks struct {
	a, b, c sync.Mutex
}

// Run is the run method of Figure 4.8; order selects the lock-grabbing order:
// 0 takes a then b, 1 takes b then c, anything else takes c then a. The
// critical sections are empty.
func (l *Locks) Run(order int) {
	switch order {
	case 0:
		l.a.Lock()
		l.b.Lock()
		l.b.Unlock()
		l.a.Unlock()
	case 1:
		l.b.Lock()
		l.c.Lock()
		l.c.Unlock()
		l.b.Unlock()
	default:
		l.c.Lock()
		l.a.Lock()
		l.a.Unlock()
		l.c.Unlock()
	}
}
