package scheduler

import (
	"sync"
	"unsafe"
)

// objHeader is the per-execution part of a synchronization object that is
// not a lock: it is reset when an execution first touches the object.
type objHeader struct {
	epoch uint64
	id    int32
}

// fresh reports whether the object was untouched in this execution (and
// marks it touched).
func (h *objHeader) fresh(r *run) bool {
	if h.epoch == r.epoch {
		return false
	}
	h.epoch, h.id = r.epoch, r.newObj()
	return true
}

// Cond is a drop-in replacement for sync.Cond.
type Cond struct {
	L       sync.Locker
	h       objHeader
	waiters []*thread // FIFO, as Go's notify list
	nonce   sync.Once
	native  *sync.Cond
}

// NewCond returns a new Cond with Locker l.
func NewCond(l sync.Locker) *Cond { return &Cond{L: l} }

func (c *Cond) nat() *sync.Cond {
	c.nonce.Do(func() { c.native = sync.NewCond(c.L) })
	return c.native
}

func (c *Cond) state(r *run) {
	if c.h.fresh(r) {
		c.waiters = nil
	}
}

// lockOf returns the model of c.L if it is one of the scheduler's locks.
func (c *Cond) lockOf(r *run) (*lockState, bool) {
	switch l := c.L.(type) {
	case *Mutex:
		return l.l.state(r, false, unsafe.Pointer(l)), true
	case *RWMutex:
		return l.l.state(r, true, unsafe.Pointer(l)), true
	}
	return nil, false
}

// Wait unlocks c.L, waits for Signal or Broadcast, and locks c.L again.
// When c.L is a Mutex or RWMutex of the scheduler, releasing it and
// starting to wait are one step, as Java's wait is in the thesis ("count as
// lock_exit"); with another Locker they are two, as in Go's implementation.
func (c *Cond) Wait() {
	r, t := enter()
	if r == nil {
		c.nat().Wait()
		return
	}
	r.event(t)
	c.state(r)
	r.syncEnter(unsafe.Pointer(c), false)
	c.waiters = append(c.waiters, t)
	if l, ok := c.lockOf(r); ok {
		if l.writer != t || l.pending {
			r.fatal(t, "sync: unlock of unlocked mutex")
		}
		r.releaseWriter(t, l)
		if r.exploring {
			r.ex.lockReleased(l.id)
		}
		r.parkHere(t, "cond", c.h.id)
	} else {
		c.L.Unlock()
		if c.isWaiting(t) {
			r.event(t)
			r.parkHere(t, "cond", c.h.id)
		}
	}
	c.L.Lock()
}

func (c *Cond) isWaiting(t *thread) bool {
	for _, w := range c.waiters {
		if w == t {
			return true
		}
	}
	return false
}

// relock returns the id of the lock a woken waiter must take again if that
// lock is held (the waiter then joins its block set), else -1.
func (c *Cond) relock(r *run) int32 {
	if l, ok := c.lockOf(r); ok && l.writer != nil {
		return l.id
	}
	return -1
}

// Signal wakes one waiting goroutine. Which one is a choice the explorer
// branches on, like notify in Fig 2.9; the first choice is Go's (the
// longest waiting).
func (c *Cond) Signal() {
	r, t := enter()
	if r == nil {
		c.nat().Signal()
		return
	}
	r.event(t)
	c.state(r)
	r.syncEnter(unsafe.Pointer(c), false)
	if len(c.waiters) == 0 {
		return
	}
	opts := make([]int32, len(c.waiters))
	for i, w := range c.waiters {
		opts[i] = w.idx
	}
	pick := r.choice(t, opts)
	for i, w := range c.waiters {
		if w.idx == pick {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			r.wakeUp(w, c.relock(r))
			return
		}
	}
}

// Broadcast wakes all waiting goroutines.
func (c *Cond) Broadcast() {
	r, t := enter()
	if r == nil {
		c.nat().Broadcast()
		return
	}
	r.event(t)
	c.state(r)
	r.syncEnter(unsafe.Pointer(c), false)
	ws := c.waiters
	c.waiters = nil
	for _, w := range ws {
		r.wakeUp(w, c.relock(r))
	}
}
