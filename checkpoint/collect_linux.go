//go:build linux

package checkpoint

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The garbage collector in the process tree.
//
// A fork is safe only at a quiescent point, and a concurrent collection in
// progress is not one: a child that inherits a cycle's mark phase inherits
// its pacing too (the mark's start time, how long the parent's workers ran),
// and the parent, which waits for its children in system calls, hardly ever
// lets a mark worker run; in a child, with its single thread and no monitor
// thread to preempt anything, nothing bounds how long such a cycle takes
// the scheduler away from the program. (A stall once blamed on this was
// the scheduler's watchdog reading a stale clock: see run.wait.)
//
// So no collection ever runs concurrently in a forked process: the root
// waits for a cycle in progress to end and turns the collector off just
// before it forks the zygote (debug.SetGCPercent(-1) returns with no cycle
// running), every process of the tree inherits that, and collects
// synchronously (runtime.GC, which returns when the cycle is over) at the
// points where it could fork, once it has allocated as much as the last
// collection left live: the pacing GOGC=100 would have chosen.

// gcTree tracks allocation in a forked process.
var gcTree struct {
	samples [2]metrics.Sample
	next    uint64 // collect once cumulative allocation passes this
}

const minGCBudget = 4 << 20 // as the runtime's minimum heap goal

// gcOffForFork turns the collector off for a fork from the root, once no
// cycle is in progress; the returned function restores it in the root.
func gcOffForFork() (restore func()) {
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

// collectIfDue runs a collection to its end in a forked process that has
// allocated its budget since the last one. Cheap enough (a metrics read,
// about half a microsecond) to call every few hundred scheduling events.
func collectIfDue() {
	if self.level == 0 {
		return
	}
	s := &gcTree.samples
	if s[0].Name == "" {
		s[0].Name, s[1].Name = "/gc/heap/allocs:bytes", "/gc/heap/live:bytes"
	}
	metrics.Read(s[:1])
	allocs := s[0].Value.Uint64()
	if gcTree.next == 0 {
		gcTree.next = allocs + minGCBudget
	}
	if allocs < gcTree.next {
		return
	}
	runtime.GC()
	metrics.Read(s[:])
	gcTree.next = s[0].Value.Uint64() + max(s[1].Value.Uint64(), minGCBudget)
}
