// Package eg runs goroutines through errgroup.
package eg

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

// Pair holds two locks.
type Pair struct{ a, b sync.Mutex }

// AB takes a then b.
func (p *Pair) AB() error { p.a.Lock(); p.b.Lock(); p.b.Unlock(); p.a.Unlock(); return nil }

// BA takes b then a.
func (p *Pair) BA() error { p.b.Lock(); p.a.Lock(); p.a.Unlock(); p.b.Unlock(); return nil }

// Both runs AB and BA (or AB twice) in an errgroup.
func Both(p *Pair, fixed bool) error {
	var g errgroup.Group
	g.Go(p.AB)
	if fixed {
		g.Go(p.AB)
	} else {
		g.Go(p.BA)
	}
	return g.Wait()
}
