package engine

import (
	"github.com/xbtest/xbtest/scheduler/internal/deadlock"
	"github.com/xbtest/xbtest/scheduler/internal/sched"

	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// The engine's side of deadlock detection (package
// scheduler/internal/deadlock, thesis 2.5): the detector reads goroutines
// and locks through deadlockHost; the drop-in locks (package syncobj) call
// its lock checks where an acquisition fails (locks.go: AcquireFailed,
// ReverseLockChain, SelfDeadlock), endPath its condition-deadlock check.
//
// The lock-cycle findings' positions skip 5 frames: srcpos.Caller, the
// engine's check (ReverseLockChain, SelfDeadlock), its caller
// (AcquireFailed), the lock's method in package syncobj and package
// scheduler's drop-in method that forwards to it. Called from AcquireFailed that reaches the caller of
// Lock; called straight from RWMutex.Lock (a writer waiting for readers)
// it reaches one frame further, the caller's caller, as it did before the
// forwarders existed (the corpus's expected positions record it).

// deadlockHost is the execution as deadlock detection reads it
// (deadlock.Host): an adapter, so that run's own methods stay the
// execution's.
type deadlockHost struct{ r *run }

var _ deadlock.Host[*thread, *lockState] = deadlockHost{}

// Goroutines implements deadlock.Host.
func (h deadlockHost) Goroutines() []*thread { return h.r.threads }

// Goroutine implements deadlock.Host.
func (h deadlockHost) Goroutine(t *thread) deadlock.Goroutine {
	g := deadlock.Goroutine{Index: t.idx, Running: t == h.r.cur, Frozen: t.frozen,
		Pseudo: t.flushOf != nil || t.isClock, On: t.on, OnLock: t.onObj, Fn: t.fn, PCs: t.pcs}
	switch t.status {
	case stWaiting:
		g.Status = deadlock.Waiting
	case stExited:
		g.Status = deadlock.Exited
	}
	return g
}

// ID implements deadlock.Host.
func (deadlockHost) ID(t *thread) string { return t.id() }

// Held implements deadlock.Host.
func (deadlockHost) Held(t *thread) []*lockState { return t.held }

// LastLock implements deadlock.Host.
func (deadlockHost) LastLock(t *thread) *lockState { return t.lastLock }

// Lock implements deadlock.Host.
func (deadlockHost) Lock(l *lockState) deadlock.Lock[*thread] {
	return deadlock.Lock[*thread]{ID: l.id, Kind: l.kind(), Writer: l.writer, Pending: l.pending}
}

// Owners implements deadlock.Host.
func (deadlockHost) Owners(l *lockState) []*thread { return l.owners() }

// Readers implements deadlock.Host.
func (deadlockHost) Readers(l *lockState) []*thread {
	ts := make([]*thread, len(l.readers))
	for i, h := range l.readers {
		ts[i] = h.t
	}
	return ts
}

// LockName implements deadlock.Host.
func (h deadlockHost) LockName(l *lockState) string { return h.r.lockName(l) }

// Blocked implements deadlock.Host.
func (h deadlockHost) Blocked() []sched.Blocked { return h.r.strat.Blocked() }

// DelayedCount implements deadlock.Host.
func (h deadlockHost) DelayedCount() int { return h.r.strat.DelayedCount() }

// Exploring implements deadlock.Host.
func (h deadlockHost) Exploring() bool { return h.r.exploring }

// TimerWakes implements deadlock.Host.
func (h deadlockHost) TimerWakes(t *thread) bool { return h.r.clock.Wakes(t.idx) }

// Wanted implements deadlock.Host: the lock the timeline saw t fail to
// take.
func (h deadlockHost) Wanted(t *thread) *lockState {
	l, _ := h.r.guide.WantOf(t.idx).(*lockState)
	return l
}

// Pos implements deadlock.Host.
func (deadlockHost) Pos(pcs []uintptr) string { return srcpos.FirstUser(pcs) }
