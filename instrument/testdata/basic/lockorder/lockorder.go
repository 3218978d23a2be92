// Package lockorder takes two locks in either order.
package lockorder

import "sync"

// Pair holds two locks.
type Pair struct {
	a, b sync.Mutex
}

// AB takes a then b.
func (p *Pair) AB() {
	p.a.Lock()
	p.b.Lock()
	p.b.Unlock()
	p.a.Unlock()
}

// BA takes b then a.
func (p *Pair) BA() {
	p.b.Lock()
	p.a.Lock()
	p.a.Unlock()
	p.b.Unlock()
}
