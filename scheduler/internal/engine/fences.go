package engine

import (
	"unsafe"

	"github.com/xbtest/xbtest/settings"
)

// Fences weaker than MFENCE, and a compare-and-swap that is no fence: the
// hardware models of Ugawa, Abe and Maeda (OOPSLA 2017, Table 1), which
// lock-free code written for weak machines is checked against. Go has
// neither (its sync/atomic operations are sequentially consistent); the
// corpus spells them with package lockfree, whose calls the rewriter
// replaces by these.
//
// In the store-buffer machines of tso.go loads are never reordered (a
// load reads memory or the own buffer when it runs), so only what a fence
// does to buffered stores matters:
//
//   - AcquireFence (McSPIN_acq_fence: earlier reads before every later
//     access) is a no-op under SC, TSO and PSO: loads already complete in
//     order.
//   - ReleaseFence (McSPIN_rel_fence: every earlier access before every
//     later write) is a no-op under SC and TSO (one FIFO keeps stores in
//     order). Under PSO the goroutine's next buffered store first drains
//     the stores buffered before the fence (with a block boundary before
//     the drain, as a fence has), so each of them commits before the later
//     store can; loads after the fence and before that store are not
//     ordered. The drain also orders the earlier stores before the loads
//     after the later store, which the fence does not: fewer behaviours
//     than the hardware, never more (as everywhere in tso.go). A
//     synchronization operation (an atomic store, a full CAS) drains
//     anyway.
//   - A relaxed CAS (-cas relaxed, PSO only; settings.RelaxedCAS) commits
//     the goroutine's buffered stores to its own address, then compares and
//     swaps in memory; stores to other addresses stay buffered and may
//     commit after it (the MP pattern with a no-barrier CAS as the flag
//     write). The CAS itself goes to memory at once: the paper's CAS is
//     atomic (its read and write happen together) and PSO keeps later loads
//     and stores after an earlier read.

// AcquireFence is lockfree.AcquireFence: no effect on a store-buffer
// machine (see above).
func AcquireFence() {}

// ReleaseFence is lockfree.ReleaseFence: under PSO the running
// goroutine's stores buffered so far commit before its next store.
func ReleaseFence() {
	r, t := enter()
	if r == nil || r.mem != settings.PSO || t.pending == 0 {
		return
	}
	t.released = true
}

// releaseBefore is the drain of a release fence, at the first store after
// it (storeBuffered).
func (r *run) releaseBefore(t *thread) {
	t.released = false
	if t.pending != 0 {
		r.yield(t)
		r.drain(t)
	}
}

// casOp runs a compare-and-swap of the variable at addr: as every atomic
// operation (a full fence), unless the CAS is relaxed.
func casOp[V any](addr *V, op func() bool) bool {
	r, t := enter()
	if r == nil || r.cfg.CAS != settings.RelaxedCAS || r.mem != settings.PSO || t.pending == 0 {
		return atomically(addr, true, op)
	}
	r.opPoint(t)
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	a, size := uintptr(unsafe.Pointer(addr)), unsafe.Sizeof(*addr)
	if r.bufferedAt(t, a, size) {
		// As fence does: a block boundary first, so that flushes and
		// other goroutines can run while the stores are pending.
		r.yield(t)
		r.drainAt(t, a, size)
	}
	t.wroteAt = t.steps
	r.dataAccess(unsafe.Pointer(addr), size, true)
	r.race.atomic(t, unsafe.Pointer(addr), size, true)
	v := op()
	r.yield(t)
	return v
}

// bufferedAt reports whether t has a buffered store overlapping
// [addr, addr+size).
func (r *run) bufferedAt(t *thread, addr, size uintptr) bool {
	for _, b := range t.bufs {
		if b.overlaps(addr, size) {
			return true
		}
	}
	return false
}

func (b *storeBuf) overlaps(addr, size uintptr) bool {
	for j := b.head; j < len(b.q); j++ {
		a, s := b.q[j].at()
		if addr < a+s && a < addr+size {
			return true
		}
	}
	return false
}

// drainAt commits, in order, every buffer of t that holds a store
// overlapping [addr, addr+size) (under PSO: the FIFO of that address),
// inside t's current block, as drain does for all of them.
func (r *run) drainAt(t *thread, addr, size uintptr) {
	for _, b := range t.bufs {
		if !b.overlaps(addr, size) {
			continue
		}
		for b.len() > 0 {
			r.guide.traceDrained(b)
			a, s := r.commitOldest(b)
			if r.exploring {
				r.strat.Access(a, s, true)
			}
		}
		if f := b.flusher; f != nil && f.status == stRunnable {
			f.status = stWaiting
			f.on, f.onObj = "store", -1
			if r.exploring {
				r.strat.Disable(f.idx)
			}
		}
	}
}
