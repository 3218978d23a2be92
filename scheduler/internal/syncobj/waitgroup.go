package syncobj

import (
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// WaitGroup is a drop-in replacement for sync.WaitGroup, of the same size;
// its state during an execution is in the execution's tables (tables.go).
type WaitGroup struct {
	native sync.WaitGroup
}

// Add adds delta to the counter; a negative delta is a release and ends an
// atomic block like a lock exit.
func (wg *WaitGroup) Add(delta int) {
	g := engine.Enter()
	if g == nil {
		wg.native.Add(delta)
		return
	}
	g.OpPoint()
	g.Event()
	w := wgOf(g, wg)
	g.DataAccess(unsafe.Pointer(wg), 8, true)
	if delta < 0 {
		// A Done is synchronized before the return of the Wait it
		// unblocks; an Add of a positive delta before nothing.
		g.Races().Publish(g.Index(), unsafe.Pointer(wg), races.RoleObject)
	}
	w.n += int64(delta)
	if w.n < 0 {
		panic("sync: negative WaitGroup counter")
	}
	w.obj = unsafe.Pointer(wg)
	if w.n == 0 {
		if engine.Collectable() {
			w.obj = nil
		}
		for _, t := range w.waiters {
			g.Wake(t, -1)
		}
		w.waiters = nil
	}
	if delta < 0 {
		g.EndBlock()
	}
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	g := engine.Enter()
	if g == nil {
		wg.native.Wait()
		return
	}
	g.OpPoint()
	g.Event()
	w := wgOf(g, wg)
	g.DataAccess(unsafe.Pointer(wg), 8, false)
	if w.n == 0 {
		g.Races().Observe(g.Index(), unsafe.Pointer(wg), races.RoleObject)
		g.EndBlock()
		return
	}
	w.waiters = append(w.waiters, g)
	g.Park("waitgroup", w.id)
	g.Races().Observe(g.Index(), unsafe.Pointer(wg), races.RoleObject)
}

// Go calls f on a new goroutine and adds that task to the WaitGroup.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	engine.Go(func() {
		defer wg.Done()
		f()
	})
}
