package engine

import "runtime/metrics"

// Race detection and the garbage collector. The detector knows memory by
// address, and an address names one object only while that object lives:
// a collection in the middle of an execution may free an object and hand
// its address to a new one (an escaping loop variable of the next call,
// say), and the new object's accesses would then be paired with the old
// one's, a race between two objects. Go's own race detector clears an
// object's history when it is allocated; xbtest sees no allocation. So
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
