package engine

import (
	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// run is the strategy's engine (sched.Engine): what a strategy may ask of
// the execution under way. Threads cross the interface as creation
// indices (-1: none); threadOf and idxOf translate.

var _ sched.Engine = (*run)(nil)

// threadOf is the thread with creation index i, nil for -1.
func (r *run) threadOf(i int32) *thread {
	if i < 0 {
		return nil
	}
	return r.threads[i]
}

// idxOf is t's creation index, -1 for nil.
func idxOf(t *thread) int32 {
	if t == nil {
		return -1
	}
	return t.idx
}

// threadAt returns the thread with creation index i (nil if there is none
// yet).
func (r *run) threadAt(i int32) *thread {
	if int(i) >= len(r.threads) {
		return nil
	}
	return r.threads[i]
}

// EventCount implements sched.Engine.
func (r *run) EventCount() int64 { return r.events }

// Running implements sched.Engine.
func (r *run) Running() int32 { return r.cur.idx }

// BlockStarted implements sched.Engine.
func (r *run) BlockStarted(t int32, depth int) { r.clock.BlockStarted(t) }

// Allocs implements sched.Engine.
func (r *run) Allocs(t int32) int32 { return r.threads[t].allocs }

// IsClock implements sched.Engine.
func (r *run) IsClock(t int32) bool { return r.threads[t].isClock }

// Tick implements sched.Engine.
func (r *run) Tick(t int32, enabled *sched.TSet) bool {
	return r.clock.Advance(t, func() bool { return !enabled.Empty() })
}

// TimerPending implements sched.Engine.
func (r *run) TimerPending() bool {
	return r.clock.CanFire()
}

// BranchPoint implements sched.Engine.
func (r *run) BranchPoint(depth int) (int32, bool) {
	if !r.snapshots {
		return -1, false
	}
	if r.offerSnapshot(depth) == checkpoint.Redirect {
		return idxOf(r.redirected()), true
	}
	return -1, false
}

// Diverge implements sched.Engine.
func (r *run) Diverge(why string) { r.diverged(r.cur, why) }

// GaveWayFairly implements sched.Engine.
func (r *run) GaveWayFairly() { r.gaveWay++ }

// Canon implements sched.Engine.
func (r *run) Canon(rw *sched.RWSet, thread, allocs int32) *sched.CanonRW {
	return r.heap.canon(rw, func(k sched.HeapKey) bool { return k.Thread == thread && k.Seq >= allocs })
}

// Uncanon implements sched.Engine.
func (r *run) Uncanon(c *sched.CanonRW) *sched.RWSet { return r.heap.uncanon(c) }

// UnknownAddr implements sched.Engine.
func (r *run) UnknownAddr(addr uintptr) bool {
	kind, _ := r.heap.classify(addr)
	return kind == sched.RegionUnknown
}
