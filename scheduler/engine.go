package scheduler

import (
	"github.com/xbtest/xbtest/checkpoint"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// engine is what a strategy needs of the execution under way; run
// implements it. It is the other half of strategy (strategy.go): the
// explorer sees the program only as numbered events, threads named by
// creation index, virtual time, and the heap's execution-independent names
// for the addresses in its read/write sets.
type engine interface {
	// eventCount is the number of events so far: blocks end at event
	// numbers (decision.end), which a replay stops at.
	eventCount() int64
	// threadAt returns the thread with creation index i (nil if there is
	// none yet).
	threadAt(i int32) *thread
	// running is the thread whose hook called the strategy.
	running() *thread
	// tick advances virtual time, firing the timers due, until enabled
	// has a member (clock.go); t is the thread whose code runs it. It
	// reports false when no timer could fire.
	tick(t *thread, enabled *sched.TSet) bool
	// timerPending reports whether a timer is pending, so time can pass.
	timerPending() bool
	// branchPoint offers a fork checkpoint the program state after depth
	// decisions. redirected: this process is a new child of that
	// snapshot and has moved on to the next start; next is the thread
	// that runs then (nil if the path ended).
	branchPoint(depth int) (next *thread, redirected bool)
	// diverge ends the execution: a re-executed part of the path did not
	// offer what it offered before (the test is not deterministic).
	diverge(why string)
	// gaveWayFairly notes that the fairness bound made a thread give way
	// (a note of the result).
	gaveWayFairly()
	// canon returns rw with execution-independent names; the objects
	// thread registered after its first allocs registrations are its own
	// and are left out. uncanon translates back into this execution's
	// addresses. unknownAddr reports whether addr is memory with no such
	// name.
	canon(rw *sched.RWSet, thread, allocs int32) *sched.CanonRW
	uncanon(c *sched.CanonRW) *sched.RWSet
	unknownAddr(addr uintptr) bool
}

var _ engine = (*run)(nil)

func (r *run) eventCount() int64 { return r.events }

func (r *run) threadAt(i int32) *thread {
	if int(i) >= len(r.threads) {
		return nil
	}
	return r.threads[i]
}

func (r *run) running() *thread { return r.cur }

func (r *run) tick(t *thread, enabled *sched.TSet) bool {
	return r.advance(t, func() bool { return !enabled.Empty() })
}

func (r *run) timerPending() bool {
	_, ok := r.clock.next()
	return ok
}

func (r *run) branchPoint(depth int) (*thread, bool) {
	if !r.snapshots {
		return nil, false
	}
	if r.offerSnapshot(depth) == checkpoint.Redirect {
		return r.redirected(), true
	}
	return nil, false
}

func (r *run) diverge(why string) { r.diverged(r.cur, why) }

func (r *run) gaveWayFairly() { r.gaveWay++ }

func (r *run) canon(rw *sched.RWSet, thread, allocs int32) *sched.CanonRW {
	return r.heap.canon(rw, func(k sched.HeapKey) bool { return k.Thread == thread && k.Seq >= allocs })
}

func (r *run) uncanon(c *sched.CanonRW) *sched.RWSet { return r.heap.uncanon(c) }

func (r *run) unknownAddr(addr uintptr) bool {
	kind, _ := r.heap.classify(addr)
	return kind == sched.RegionUnknown
}
