package engine

import (
	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// stratHost is the execution as the strategy's engine (sched.Engine):
// what a strategy may ask of the execution under way; an adapter, so that
// run's own methods stay the execution's. Threads cross the interface as
// creation indices (-1: none); threadOf and idxOf (run.go) translate.
type stratHost struct{ r *run }

var _ sched.Engine = stratHost{}

// EventCount implements sched.Engine.
func (h stratHost) EventCount() int64 { return h.r.events }

// Running implements sched.Engine.
func (h stratHost) Running() int32 { return h.r.cur.idx }

// BlockStarted implements sched.Engine.
func (h stratHost) BlockStarted(t int32, depth int) { h.r.clock.BlockStarted(t) }

// Allocs implements sched.Engine.
func (h stratHost) Allocs(t int32) int32 { return h.r.threads[t].allocs }

// IsClock implements sched.Engine.
func (h stratHost) IsClock(t int32) bool { return h.r.threads[t].isClock }

// Tick implements sched.Engine. Not while a goroutine the step bound
// stopped could run and was still writing (computing): time passes only
// when no goroutine can run, and that one could.
func (h stratHost) Tick(t int32, enabled *sched.TSet) bool {
	if h.r.computing() {
		return false
	}
	return h.r.clock.Advance(t, func() bool { return !enabled.Empty() })
}

// TimerPending implements sched.Engine.
func (h stratHost) TimerPending() bool {
	return h.r.clock.CanFire()
}

// BranchPoint implements sched.Engine.
func (h stratHost) BranchPoint(depth int) (int32, bool) {
	r := h.r
	if !r.snapshots {
		return -1, false
	}
	if r.offerSnapshot(depth) == checkpoint.Redirect {
		return idxOf(r.redirected()), true
	}
	return -1, false
}

// Diverge implements sched.Engine.
func (h stratHost) Diverge(why string) { h.r.diverged(h.r.cur, why) }

// GaveWayFairly implements sched.Engine.
func (h stratHost) GaveWayFairly() { h.r.gaveWay++ }

// Canon implements sched.Engine.
func (h stratHost) Canon(rw *sched.RWSet, thread, allocs int32) *sched.CanonRW {
	return h.r.heap.Canon(rw, func(k sched.HeapKey) bool { return k.Thread == thread && k.Seq >= allocs })
}

// Uncanon implements sched.Engine.
func (h stratHost) Uncanon(c *sched.CanonRW) *sched.RWSet { return h.r.heap.Uncanon(c) }

// UnknownAddr implements sched.Engine.
func (h stratHost) UnknownAddr(addr uintptr) bool {
	r := h.r
	kind, _ := r.heap.Classify(addr)
	return kind == sched.RegionUnknown
}

// Flusher implements sched.Engine.
func (h stratHost) Flusher(i int32) (owner int32, forced bool) {
	r := h.r
	t := r.threadAt(i)
	if t == nil || t.flushOf == nil {
		return -1, false
	}
	return t.flushOf.Owner(), r.buf.Forced(t.flushOf)
}
