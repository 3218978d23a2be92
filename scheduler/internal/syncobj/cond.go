package syncobj

import (
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Cond is a drop-in replacement for sync.Cond, of the same size. L comes
// first, as in sync.Cond; its state during an execution is in the
// execution's tables (tables.go).
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

// lockOf returns the state of c.L if it is one of the scheduler's locks.
func (c *Cond) lockOf(g *engine.G) (*engine.Lock, bool) {
	switch l := DropInLock(c.L).(type) {
	case *Mutex:
		return g.Lock(unsafe.Pointer(l), false), true
	case *RWMutex:
		return g.Lock(unsafe.Pointer(l), true), true
	}
	return nil, false
}

// Wait unlocks c.L, waits for Signal or Broadcast, and locks c.L again.
// When c.L is a Mutex or RWMutex of the scheduler, releasing it and
// starting to wait are one step, as Java's wait is in the thesis ("count as
// lock_exit"); with another Locker they are two, as in Go's implementation.
func (c *Cond) Wait() {
	g := engine.Enter()
	if g == nil {
		c.nat().Wait()
		return
	}
	g.OpPoint()
	g.Event()
	s := condOf(g, c)
	g.SyncEnter(unsafe.Pointer(c), false)
	s.waiters = append(s.waiters, g)
	if l, ok := c.lockOf(g); ok {
		// c.L.Unlock: as in Go, whoever locked it (mutexes have no owner).
		if l.Writer() == nil || l.Pending() {
			g.Fatal("sync: unlock of unlocked mutex")
		}
		g.ReleaseWrite(l)
		g.Released(l)
		g.Park("cond", s.id)
	} else {
		c.L.Unlock()
		if s.isWaiting(g) {
			g.Event()
			g.Park("cond", s.id)
		}
	}
	c.L.Lock()
}

func (s *condState) isWaiting(g *engine.G) bool {
	for _, w := range s.waiters {
		if w == g {
			return true
		}
	}
	return false
}

// relock returns the id of the lock a woken waiter must take again if that
// lock is held (the waiter then joins its block set), else -1.
func (c *Cond) relock(g *engine.G) int32 {
	if l, ok := c.lockOf(g); ok && l.Writer() != nil {
		return l.ID()
	}
	return -1
}

// Signal wakes one waiting goroutine. Which one is a choice the explorer
// branches on, like notify in Fig 2.9; the first choice is Go's (the
// longest waiting).
func (c *Cond) Signal() {
	g := engine.Enter()
	if g == nil {
		c.nat().Signal()
		return
	}
	g.OpPoint()
	g.Event()
	s := condOf(g, c)
	g.SyncEnter(unsafe.Pointer(c), false)
	if len(s.waiters) == 0 {
		return
	}
	opts := make([]int32, len(s.waiters))
	for i, w := range s.waiters {
		opts[i] = w.Index()
	}
	pick := g.Choose(opts)
	for i, w := range s.waiters {
		if w.Index() == pick {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			relock := c.relock(g)
			g.Wake(w, relock)
			if relock < 0 {
				// The signaller did not hold c.L (which Go allows
				// and Java's notify does not): the waiter may run
				// before the rest of its block.
				g.WokeMidBlock()
			}
			return
		}
	}
}

// Broadcast wakes all waiting goroutines.
func (c *Cond) Broadcast() {
	g := engine.Enter()
	if g == nil {
		c.nat().Broadcast()
		return
	}
	g.OpPoint()
	g.Event()
	s := condOf(g, c)
	g.SyncEnter(unsafe.Pointer(c), false)
	ws := s.waiters
	s.waiters = nil
	free := false
	for _, w := range ws {
		relock := c.relock(g)
		g.Wake(w, relock)
		free = free || relock < 0
	}
	if free {
		g.WokeMidBlock()
	}
}
