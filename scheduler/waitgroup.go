package scheduler

import (
	"sync"
	"unsafe"
)

// WaitGroup is a drop-in replacement for sync.WaitGroup.
type WaitGroup struct {
	h       objHeader
	n       int64
	waiters []*thread
	native  sync.WaitGroup
}

func (wg *WaitGroup) state(r *run) {
	if wg.h.fresh(r) {
		wg.n, wg.waiters = 0, nil
	}
}

// Add adds delta to the counter; a negative delta is a release and ends an
// atomic block like a lock exit.
func (wg *WaitGroup) Add(delta int) {
	r, t := enter()
	if r == nil {
		wg.native.Add(delta)
		return
	}
	r.event(t)
	wg.state(r)
	r.dataAccess(unsafe.Pointer(&wg.n), 8, true)
	if delta < 0 {
		// A Done is synchronized before the return of the Wait it
		// unblocks; an Add of a positive delta before nothing.
		r.racePublish(t, unsafe.Pointer(wg), roleObject)
	}
	wg.n += int64(delta)
	if wg.n < 0 {
		panic("sync: negative WaitGroup counter")
	}
	if wg.n == 0 {
		for _, w := range wg.waiters {
			r.wakeUp(w, -1)
		}
		wg.waiters = nil
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
	r.event(t)
	wg.state(r)
	r.dataAccess(unsafe.Pointer(&wg.n), 8, false)
	if wg.n == 0 {
		r.raceObserve(t, unsafe.Pointer(wg), roleObject)
		r.yield(t)
		return
	}
	wg.waiters = append(wg.waiters, t)
	r.parkHere(t, "waitgroup", wg.h.id)
	r.raceObserve(t, unsafe.Pointer(wg), roleObject)
}

// Go calls f on a new goroutine and adds that task to the WaitGroup.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	Go(func() {
		defer wg.Done()
		f()
	})
}
