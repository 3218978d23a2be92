package engine

import (
	"sync"
	"unsafe"
)

// Cond is a drop-in replacement for sync.Cond, of the same size. L comes
// first, as in sync.Cond; its state during an execution is in the run's
// tables (syncstate.go).
type Cond struct {
	L      sync.Locker
	native *sync.Cond // for use outside any execution, made on first use
	nonce  sync.Once
	_      [20]byte // sync.Cond's size
}

// NewCond returns a new Cond with Locker l.
func NewCond(l sync.Locker) *Cond { return &Cond{L: l} }

func (c *Cond) nat() *sync.Cond {
	c.nonce.Do(func() { c.native = sync.NewCond(c.L) })
	return c.native
}

// DropInLock returns the Mutex or RWMutex of this package inside one of
// package scheduler's drop-in locks (a struct around it, at the same
// address), or l itself. Package scheduler sets it when it is initialised:
// rewritten code puts its drop-in types, not this package's, in a Cond's L.
var DropInLock = func(l sync.Locker) sync.Locker { return l }

// lockOf returns the model of c.L if it is one of the scheduler's locks.
func (c *Cond) lockOf(r *run) (*lockState, bool) {
	switch l := DropInLock(c.L).(type) {
	case *Mutex:
		return r.lockOf(unsafe.Pointer(l), false), true
	case *RWMutex:
		return r.lockOf(unsafe.Pointer(l), true), true
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
	r.opPoint(t)
	r.event(t)
	s := r.condOf(c)
	r.syncEnter(unsafe.Pointer(c), false)
	s.waiters = append(s.waiters, t)
	if l, ok := c.lockOf(r); ok {
		// c.L.Unlock: as in Go, whoever locked it (mutexes have no owner).
		if l.writer == nil || l.pending {
			r.fatal(t, "sync: unlock of unlocked mutex")
		}
		r.releaseWriter(t, l)
		r.released(l)
		r.parkHere(t, "cond", s.id)
	} else {
		c.L.Unlock()
		if s.isWaiting(t) {
			r.event(t)
			r.parkHere(t, "cond", s.id)
		}
	}
	c.L.Lock()
}

func (s *condState) isWaiting(t *thread) bool {
	for _, w := range s.waiters {
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
	r.opPoint(t)
	r.event(t)
	s := r.condOf(c)
	r.syncEnter(unsafe.Pointer(c), false)
	if len(s.waiters) == 0 {
		return
	}
	opts := make([]int32, len(s.waiters))
	for i, w := range s.waiters {
		opts[i] = w.idx
	}
	pick := r.choice(t, opts)
	for i, w := range s.waiters {
		if w.idx == pick {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			relock := c.relock(r)
			r.wakeUp(w, relock)
			if relock < 0 {
				r.wokeMidBlock(t)
			}
			return
		}
	}
}

// wokeMidBlock: the signaller woke a waiter whose lock nobody holds (it
// signalled without holding c.L, which Go allows and Java's notify does
// not), so the waiter may run before the rest of the signaller's block; the
// explorer branches there as after a go statement (internal/exitblock, "Spawn branches").
func (r *run) wokeMidBlock(t *thread) {
	if r.exploring {
		r.strat.EnabledMidBlock()
	}
	r.transfer(t, r.point(t, ptWake))
}

// Broadcast wakes all waiting goroutines.
func (c *Cond) Broadcast() {
	r, t := enter()
	if r == nil {
		c.nat().Broadcast()
		return
	}
	r.opPoint(t)
	r.event(t)
	s := r.condOf(c)
	r.syncEnter(unsafe.Pointer(c), false)
	ws := s.waiters
	s.waiters = nil
	free := false
	for _, w := range ws {
		relock := c.relock(r)
		r.wakeUp(w, relock)
		free = free || relock < 0
	}
	if free {
		r.wokeMidBlock(t)
	}
}
