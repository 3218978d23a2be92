package engine

import (
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"sync"
	"unsafe"
)

// WaitGroup is a drop-in replacement for sync.WaitGroup, of the same size;
// its state during an execution is in the run's tables (syncstate.go).
type WaitGroup struct {
	native sync.WaitGroup
}

// Add adds delta to the counter; a negative delta is a release and ends an
// atomic block like a lock exit.
func (wg *WaitGroup) Add(delta int) {
	r, t := enter()
	if r == nil {
		wg.native.Add(delta)
		return
	}
	r.opPoint(t)
	r.event(t)
	w := r.wgOf(wg)
	r.dataAccess(unsafe.Pointer(wg), 8, true)
	if delta < 0 {
		// A Done is synchronized before the return of the Wait it
		// unblocks; an Add of a positive delta before nothing.
		r.race.Publish(t.idx, unsafe.Pointer(wg), races.RoleObject)
	}
	w.n += int64(delta)
	if w.n < 0 {
		panic("sync: negative WaitGroup counter")
	}
	if w.n == 0 {
		for _, t := range w.waiters {
			r.wakeUp(t, -1)
		}
		w.waiters = nil
	}
	if delta < 0 {
		r.yield(t)
	}
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	r, t := enter()
	if r == nil {
		wg.native.Wait()
		return
	}
	r.opPoint(t)
	r.event(t)
	w := r.wgOf(wg)
	r.dataAccess(unsafe.Pointer(wg), 8, false)
	if w.n == 0 {
		r.race.Observe(t.idx, unsafe.Pointer(wg), races.RoleObject)
		r.yield(t)
		return
	}
	w.waiters = append(w.waiters, t)
	r.parkHere(t, "waitgroup", w.id)
	r.race.Observe(t.idx, unsafe.Pointer(wg), races.RoleObject)
}

// Go calls f on a new goroutine and adds that task to the WaitGroup.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	Go(func() {
		defer wg.Done()
		f()
	})
}
