package syncobj

import (
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Mutex and RWMutex. What a lock is during an execution (who holds it,
// for writing or reading, a writer waiting for readers) is the engine's
// lock bookkeeping (engine.Lock), which deadlock detection, the race
// detector's locksets and the timeline read; where a lock operation ends a
// block, and what an exploration learns about that (TryLock, RWMutexes
// both read- and write-locked), is the engine's too (its locks.go). What
// is here is the operations: in which order they check, take, release,
// wait and wake, and Go's fatal errors.

// Mutex is a drop-in replacement for sync.Mutex, of the same size.
type Mutex struct {
	native sync.Mutex
}

// Lock locks m.
func (m *Mutex) Lock() {
	g := engine.Enter()
	if g == nil {
		m.native.Lock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(m), false)
	g.SyncEnter(unsafe.Pointer(m), false)
	for l.Writer() == g {
		g.WaitRelease(l) // by another goroutine: m is not g's
		g.Event()
	}
	if l.Writer() != nil {
		g.AcquireFailed(l, "Lock")
	}
	g.TakeWrite(l)
	g.Races().Locked(g.Index(), l.Clocks(), true)
	g.Acquired(l, false)
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	g := engine.Enter()
	if g == nil {
		return m.native.TryLock()
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(m), false)
	// The outcome observes the lock, so the attempt is a write to it even
	// without -sync-deps.
	g.SyncEnter(unsafe.Pointer(m), true)
	g.TriedLock(l)
	if l.Writer() != nil {
		g.EndBlock() // a failed attempt ends a block too (the engine's "TryLock and the atomicity of blocks")
		return false
	}
	g.TakeWrite(l)
	g.Races().Locked(g.Index(), l.Clocks(), true)
	g.Acquired(l, false) // a TryLock elsewhere may observe it held
	return true
}

// Unlock unlocks m; as in Go, it may be called by another goroutine than
// the one that locked it.
func (m *Mutex) Unlock() {
	g := engine.Enter()
	if g == nil {
		m.native.Unlock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(m), false)
	if l.Writer() == nil {
		g.Fatal("sync: unlock of unlocked mutex")
	}
	g.ReleaseWrite(l)
	g.LockExit(l)
}

// RWMutex is a drop-in replacement for sync.RWMutex. Like Go's, it prefers
// writers: once a writer waits for the readers to leave, new readers wait.
//
// A waiting writer is observable (the engine's "A waiting writer"): it
// announces itself and from then on every new RLock blocks, so unlike a
// failed acquisition it is not undone; the writer waits, like a Cond
// waiter, for the readers to leave.
type RWMutex struct {
	native sync.RWMutex
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	g := engine.Enter()
	if g == nil {
		rw.native.Lock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	g.SeenRW(l, false)
	// Who enters a mixed RWMutex first is observable (a waiting writer
	// blocks new readers), so the enter is a write to it for ExitBlock-RW
	// even without -sync-deps.
	g.SyncEnter(unsafe.Pointer(rw), g.MixedRW(l))
	for l.Writer() == g {
		g.WaitRelease(l) // as in Mutex.Lock
		g.Event()
	}
	if l.Writer() != nil {
		// Another writer holds the lock or waits for readers: as with a
		// Mutex, the block is abandoned.
		g.AcquireFailed(l, "Lock")
	}
	g.TakeWrite(l)
	if l.Readers() == 0 {
		g.Races().Locked(g.Index(), l.Clocks(), true)
		g.Acquired(l, false)
		return
	}
	// The writer announces itself: from now on readers wait.
	if l.ReadBy(g) {
		g.SelfDeadlock(l, "Lock")
	}
	l.SetPending(true)
	if g.DetectsDeadlocks() {
		g.ReverseLockChain(l, "Lock")
	}
	g.Park("rwmutex (writer waiting for readers)", l.ID())
	g.Races().Locked(g.Index(), l.Clocks(), true)
	g.Acquired(l, false)
}

// TryLock tries to lock rw for writing.
func (rw *RWMutex) TryLock() bool {
	g := engine.Enter()
	if g == nil {
		return rw.native.TryLock()
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	g.SyncEnter(unsafe.Pointer(rw), true)
	g.TriedLock(l)
	if l.Writer() != nil || l.Readers() > 0 {
		g.EndBlock() // a failed attempt ends a block too
		return false
	}
	g.TakeWrite(l)
	g.Races().Locked(g.Index(), l.Clocks(), true)
	g.Acquired(l, false)
	return true
}

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() {
	g := engine.Enter()
	if g == nil {
		rw.native.Unlock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	if l.Writer() == nil || l.Pending() {
		g.Fatal("sync: Unlock of unlocked RWMutex")
	}
	g.ReleaseWrite(l)
	g.LockExit(l)
}

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	g := engine.Enter()
	if g == nil {
		rw.native.RLock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	g.SeenRW(l, true)
	// As in Lock: the enter of a mixed RWMutex is a write to it.
	g.SyncEnter(unsafe.Pointer(rw), g.MixedRW(l))
	for l.Writer() == g {
		g.WaitRelease(l) // as in Mutex.Lock
		g.Event()
	}
	if l.Writer() != nil {
		g.AcquireFailed(l, "RLock")
	}
	g.TakeRead(l)
	g.Races().Locked(g.Index(), l.Clocks(), false)
	g.Acquired(l, true)
}

// TryRLock tries to lock rw for reading.
func (rw *RWMutex) TryRLock() bool {
	g := engine.Enter()
	if g == nil {
		return rw.native.TryRLock()
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	g.SyncEnter(unsafe.Pointer(rw), true)
	g.TriedLock(l)
	if l.Writer() != nil {
		g.EndBlock() // a failed attempt ends a block too
		return false
	}
	g.TakeRead(l)
	g.Races().Locked(g.Index(), l.Clocks(), false)
	g.Acquired(l, true)
	return true
}

// RUnlock undoes a single RLock call.
func (rw *RWMutex) RUnlock() {
	g := engine.Enter()
	if g == nil {
		rw.native.RUnlock()
		return
	}
	g.OpPoint()
	g.Event()
	l := g.Lock(unsafe.Pointer(rw), true)
	if l.Readers() == 0 {
		g.Fatal("sync: RUnlock of unlocked RWMutex")
	}
	g.ReleaseRead(l)
	if l.Readers() == 0 && l.Pending() {
		// The last reader left: the waiting writer holds the lock now.
		l.SetPending(false)
		g.Wake(l.Writer(), -1)
	}
	g.LockExit(l)
}

// RLocker returns a Locker that locks rw for reading.
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }
