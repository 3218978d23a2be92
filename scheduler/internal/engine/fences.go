package engine

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"github.com/xbtest/xbtest/settings"
)

// Fences weaker than MFENCE, and a compare-and-swap that is no fence
// (package lockfree's calls, which the rewriter replaces by these): what
// they do to buffered stores is package storebuf's (its doc, "Fences").

// AcquireFence is lockfree.AcquireFence: no effect on a store-buffer
// machine (see above).
func AcquireFence() {}

// ReleaseFence is lockfree.ReleaseFence: under PSO the running
// goroutine's stores buffered so far commit before its next store.
func ReleaseFence() {
	if r, t := enter(); r != nil {
		r.buf.ReleaseFence(&t.sb)
	}
}

// casOp runs a compare-and-swap of the variable at addr: as every atomic
// operation (a full fence), unless the CAS is relaxed.
func casOp[V any](addr *V, op func() bool) bool {
	r, t := enter()
	if r == nil || r.cfg.CAS != settings.RelaxedCAS || r.mem != settings.PSO || t.sb.Pending == 0 {
		return atomically(addr, true, op)
	}
	r.opPoint(t)
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	a, size := uintptr(unsafe.Pointer(addr)), unsafe.Sizeof(*addr)
	if storebuf.BufferedAt(&t.sb, a, size) {
		// As a fence does: a block boundary first, so that flushes and
		// other goroutines can run while the stores are pending.
		r.yield(t)
		r.buf.DrainAt(&t.sb, a, size)
	}
	t.wroteAt = t.steps
	r.dataAccess(unsafe.Pointer(addr), size, true)
	r.race.Atomic(t.idx, unsafe.Pointer(addr), size, true)
	v := op()
	r.yield(t)
	return v
}
