package engine

import (
	"runtime"
	"runtime/metrics"
	"time"
	_ "unsafe" // go:linkname
)

// Race detection and the garbage collector. The detector knows memory by
// address, and an address names one object only while that object lives:
// a collection in the middle of an execution may free an object and hand
// its address to a new one (an escaping loop variable of the next call,
// say), and the new object's accesses would then be paired with the old
// one's, a race between two objects. Go's own race detector clears an
// object's history when it is allocated; xbtest sees only the allocations
// of rewritten code (and then does the same: run.alloc), not those of
// escaping local variables or of code it does not rewrite. So
// an execution notes the collector's cycle count when it starts, a race
// found after a cycle completed is marked (Finding.AfterGC), and the
// driver keeps such a race only if its schedule, replayed with the
// collector off, shows it again, or another execution without a collection
// shows it.

var gcSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}

// gcCycles is the number of collections completed in this process (a
// metrics read: about 0.2 µs, once per execution and once per race).
var gcCycles = func() uint64 {
	metrics.Read(gcSample)
	return gcSample[0].Value.Uint64()
}

// SetGCCyclesForTest replaces the collector's cycle count, so that tests
// can have a collection complete where they need one; restore undoes it.
func SetGCCyclesForTest(f func() uint64) (restore func()) {
	old := gcCycles
	gcCycles = f
	return func() { gcCycles = old }
}

// collectable says that the program can observe a collection: a rewritten
// package calls runtime.GC, runtime.AddCleanup, runtime.SetFinalizer or
// weak.Make (the rewriter registers it with ObservesCollection). Then what
// the execution keeps of the objects it sees (the heap index of package
// location, the tables of locks and WaitGroups, ended goroutines'
// functions) does not keep them alive, so that an object the program
// dropped is collected as in plain Go, and a test that waits for that
// passes. Otherwise they stay alive until the execution ends: an address
// names one object within an execution, and no collection changes what an
// execution explores (location.Index says what changes when one does).
var collectable bool

// ObservesCollection is called by the initialization of a rewritten package
// that can observe a collection (see collectable).
func ObservesCollection() bool {
	collectable = true
	return true
}

// Collectable reports whether what the execution keeps of an object lets
// it be collected (see collectable).
func Collectable() bool { return collectable }

// SetCollectableForTest sets collectable; restore undoes it.
func SetCollectableForTest(on bool) (restore func()) {
	old := collectable
	collectable = on
	return func() { collectable = old }
}

// heapCycles is what the heap index watches: the collector's cycle count
// if objects may be collected, nil if they are kept alive.
func heapCycles() func() uint64 {
	if !collectable {
		return nil
	}
	return gcCycles
}

// GC runs a collection, as runtime.GC, and waits (a second at most) until
// the cleanups and finalizers it queued have run: a test that polls for
// them (runtime.AddCleanup setting a flag, then runtime.GC in a loop)
// behaves the same in every execution of a schedule, where the runtime
// would run them some time later, and a replay would diverge. The cleanup
// queue has no call to wait for it: a sentinel object's cleanup, queued by
// a second collection after the first's, says when the queue reached it.
func GC() {
	runtime.GC()
	done := make(chan struct{})
	func() {
		s := &sentinel{}
		runtime.AddCleanup(s, func(c chan struct{}) { close(c) }, done)
	}()
	runtime.GC()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	blockUntilEmptyFinalizerQueue(int64(time.Second))
}

// sentinel is an object of its own (it holds a pointer: not combined with
// others by the tiny allocator, whose objects are freed together).
type sentinel struct {
	_ *int
	_ [16]byte
}

// blockUntilEmptyFinalizerQueue waits until the finalizers queued have run,
// or the timeout (ns) passed; the runtime offers it to tests.
//
//go:linkname blockUntilEmptyFinalizerQueue runtime.blockUntilEmptyFinalizerQueue
func blockUntilEmptyFinalizerQueue(timeout int64) bool
