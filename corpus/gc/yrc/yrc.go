// Package yrc ports YRC, the thread-safe ORC cycle collector of Nim, as its
// TLA+ specification describes it (lib/system/yrc_proof.tla, 2026-02-23):
// its write barrier, striped increment and decrement buffers, trial
// deletion under a global lock, and the race on seq payloads that the
// global lock's change into a read-write lock fixes.
//
// Graph updates are lock-free: a pointer field is written by an atomic
// store. The reference count changes are buffered in a stripe's queues
// under the stripe's locks; the collector, under the global lock, merges
// them (mergePendingRoots) and collects cycles by trial deletion from the
// objects whose count was decremented: markGray subtracts internal edges,
// scan rescues objects whose count stays positive (scanBlack follows the
// current edges), collectWhite frees the rest.
//
// A seq field owns a payload (its data array), freed by the value-type
// hooks when the seq is assigned, not by the collector. The race (the
// specification's header): the collector tracing object O reads the
// payload pointer P of O's seq; a mutator assigns O's seq, which frees P;
// the collector dereferences P. The fix: the global lock becomes an
// RWMutex; the collector takes its write side, seq mutations its read
// side. And a seq operation that overflows a stripe's queue while it holds
// the read lock must not run a collection (which takes the write lock: Go's
// RWMutex, like Nim's, is not upgradeable): it drains the buffers without
// one.
//
// The specification's own actions never reach these paths (its writes and
// seq actions are vacuous as written, see ../README.md); this model follows
// the header's description. Invariants as assertions:
//
//   - SeqPayloadSafety: the payload the collector traces is alive (checked
//     when the collector dereferences it).
//   - Safety: no object reachable from a mutator's stack roots is freed.
//   - CycleInvariant: an object the collector frees has no external
//     reference (stack root).
//   - RCInvariant: after a merge that leaves the buffers empty, every
//     live object's count is its logical count (internal edges plus stack
//     roots).
//   - RWLockInvariant is Go's RWMutex itself.
package yrc

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Obj is a heap object: one pointer field, one seq field.
type Obj struct {
	Name  string
	field atomic.Pointer[Obj]     // written by atomic store (nimAsgnYrc's atomicStoreN)
	seq   atomic.Pointer[Payload] // the seq field's payload pointer

	// Under the global lock's write side (or its read side and the
	// stripe's locks when draining):
	rc      int
	color   Color
	inRoots bool
	freed   bool
	stack   int // ghost: stack roots referring to it (ExternalRC)
}

// Payload is a seq's data array.
type Payload struct {
	alive atomic.Bool // ghost: its memory is valid
	elems []*Obj
}

// NewPayload allocates a payload holding elems.
func NewPayload(elems ...*Obj) *Payload {
	p := &Payload{elems: elems}
	p.alive.Store(true)
	return p
}

// free is the value-type destructor's free: the memory is invalid, and
// reused (poisoned) at once.
func (p *Payload) free() {
	p.alive.Store(false)
	p.elems = nil
}

// Color of an object in trial deletion.
type Color int

const (
	Black Color = iota
	Gray
	White
)

// Lock is how the global YRC lock is taken.
type Lock int

const (
	// RWLock is the fix: the collector takes the write side, seq
	// mutations the read side.
	RWLock Lock = iota
	// PlainLock is the lock before the fix: a Mutex the collector (and
	// the overflow merges) take; seq mutations take none.
	PlainLock
	// PlainLockBoth: seq mutations take the plain Mutex too (safe, but
	// they exclude each other).
	PlainLockBoth
)

// Overflow is what a seq operation does when a stripe's queue is full.
type Overflow int

const (
	// Collect runs collectCycles, which takes the write lock.
	Collect Overflow = iota
	// Drain applies the buffered counts without the write lock (the
	// header's "deadlock avoidance").
	Drain
)

// Heap is the shared state: the global lock, one stripe (the
// specification's GetStripe is 0 for every thread), the roots array.
type Heap struct {
	lock     Lock
	overflow Overflow
	rw       sync.RWMutex
	mu       sync.Mutex

	queueSize    int
	incMu, decMu sync.Mutex
	toInc, toDec []*Obj
	roots        []*Obj // mergedRoots, under the write side
	objs         []*Obj // every object, for the checks
	checkingRC   bool   // RCInvariant is checked (at quiescence)
	violationsMu sync.Mutex
	violations   map[string]string // the first violation of each invariant
}

// NewHeap makes a heap with the given lock, overflow handling and stripe
// queue size, holding objs.
func NewHeap(lock Lock, overflow Overflow, queueSize int, objs ...*Obj) *Heap {
	return &Heap{lock: lock, overflow: overflow, queueSize: queueSize, objs: objs, violations: map[string]string{}}
}

// fail records the first violation of invariant inv.
func (h *Heap) fail(inv, format string, args ...any) {
	h.violationsMu.Lock()
	defer h.violationsMu.Unlock()
	if h.violations[inv] == "" {
		h.violations[inv] = inv + ": " + fmt.Sprintf(format, args...)
	}
}

// Violation returns the first violation of invariant inv
// ("SeqPayloadSafety", "Safety", "CycleInvariant", "RCInvariant"), or "".
func (h *Heap) Violation(inv string) string {
	h.violationsMu.Lock()
	defer h.violationsMu.Unlock()
	return h.violations[inv]
}

// lockW and unlockW take the global lock's write side (the collector).
func (h *Heap) lockW() {
	if h.lock == RWLock {
		h.rw.Lock()
	} else {
		h.mu.Lock()
	}
}

func (h *Heap) unlockW() {
	if h.lock == RWLock {
		h.rw.Unlock()
	} else {
		h.mu.Unlock()
	}
}

// lockR and unlockR are what a seq mutation takes.
func (h *Heap) lockR() {
	switch h.lock {
	case RWLock:
		h.rw.RLock()
	case PlainLockBoth:
		h.mu.Lock()
	}
}

func (h *Heap) unlockR() {
	switch h.lock {
	case RWLock:
		h.rw.RUnlock()
	case PlainLockBoth:
		h.mu.Unlock()
	}
}

// Setup sets counts and queues before any goroutine starts: obj's count
// and its stack roots.
func (h *Heap) Setup(o *Obj, rc, stack int) {
	o.rc, o.stack = rc, stack
}

// Decremented puts o in the stripe's decrement queue (it lost a reference
// before the test starts).
func (h *Heap) Decremented(o *Obj) { h.toDec = append(h.toDec, o) }

// SetField is a store to o's field before the test starts.
func SetField(o, to *Obj) { o.field.Store(to) }

// SetSeq is o's seq before the test starts.
func SetSeq(o *Obj, p *Payload) { o.seq.Store(p) }

// incRef is nimIncRefCyclic: buffer an increment under the stripe's
// lock; on overflow, handle it.
func (h *Heap) incRef(o *Obj, readLocked bool) {
	h.incMu.Lock()
	h.toInc = append(h.toInc, o)
	full := len(h.toInc) >= h.queueSize
	h.incMu.Unlock()
	if full {
		h.overflowed(readLocked)
	}
}

// decRef is yrcDec: buffer a decrement under the stripe's lock; on
// overflow, handle it.
func (h *Heap) decRef(o *Obj, readLocked bool) {
	h.decMu.Lock()
	h.toDec = append(h.toDec, o)
	full := len(h.toDec) >= h.queueSize
	h.decMu.Unlock()
	if full {
		h.overflowed(readLocked)
	}
}

func (h *Heap) overflowed(readLocked bool) {
	if readLocked && h.overflow == Drain {
		h.drain()
		return
	}
	h.CollectCycles()
}

// drain applies the buffered counts without the write lock: the caller
// holds the read side, which excludes the collector; the stripe's locks
// exclude other drainers.
func (h *Heap) drain() {
	h.incMu.Lock()
	h.decMu.Lock()
	h.applyBuffers()
	h.decMu.Unlock()
	h.incMu.Unlock()
}

// applyBuffers applies and empties the stripe's queues; decremented
// objects go to the roots array. Called with both stripe locks held.
func (h *Heap) applyBuffers() {
	for _, o := range h.toInc {
		o.rc++
	}
	for _, o := range h.toDec {
		o.rc--
		if !o.inRoots {
			o.inRoots = true
			h.roots = append(h.roots, o)
		}
	}
	h.toInc, h.toDec = nil, nil
}

// SeqAssign is o.seq = p in a mutator (the value-type hook =sink): under
// the read lock, increment the new elements, store the payload, decrement
// the old elements and free the old payload.
func (h *Heap) SeqAssign(o *Obj, p *Payload) {
	h.lockR()
	defer h.unlockR()
	for _, e := range p.elems {
		h.incRef(e, h.lock == RWLock)
	}
	old := o.seq.Swap(p)
	for _, e := range old.elems {
		h.decRef(e, h.lock == RWLock)
	}
	old.free()
}

// CollectCycles is collectCycles: under the write lock, merge the buffers
// and collect the cycles among the roots.
func (h *Heap) CollectCycles() {
	h.lockW()
	defer h.unlockW()
	// mergePendingRoots.
	h.incMu.Lock()
	h.decMu.Lock()
	h.applyBuffers()
	h.decMu.Unlock()
	h.incMu.Unlock()
	h.checkRC()
	for _, r := range h.roots {
		h.markGray(r)
	}
	for _, r := range h.roots {
		h.scan(r)
	}
	for _, r := range h.roots {
		r.inRoots = false
	}
	for _, r := range h.roots {
		h.collectWhite(r)
	}
	h.roots = nil
}

// children are o's field and the elements of its seq's payload, read in
// two steps as the collector does: the payload pointer, then the payload
// (CollectorStartTraceSeq, CollectorFinishTraceSeq).
func (h *Heap) children(o *Obj) []*Obj {
	var cs []*Obj
	if f := o.field.Load(); f != nil {
		cs = append(cs, f)
	}
	if p := o.seq.Load(); p != nil {
		if !p.alive.Load() {
			h.fail("SeqPayloadSafety", "the collector traces %s's seq payload after it was freed", o.Name)
		}
		cs = append(cs, p.elems...)
	}
	return cs
}

func (h *Heap) markGray(o *Obj) {
	if o.color == Gray {
		return
	}
	o.color = Gray
	for _, c := range h.children(o) {
		c.rc--
		h.markGray(c)
	}
}

func (h *Heap) scan(o *Obj) {
	if o.color != Gray {
		return
	}
	if o.rc > 0 {
		h.scanBlack(o)
		return
	}
	o.color = White
	for _, c := range h.children(o) {
		h.scan(c)
	}
}

func (h *Heap) scanBlack(o *Obj) {
	o.color = Black
	for _, c := range h.children(o) {
		c.rc++
		if c.color != Black {
			h.scanBlack(c)
		}
	}
}

func (h *Heap) collectWhite(o *Obj) {
	if o.color != White || o.inRoots {
		return
	}
	o.color = Black
	if o.stack > 0 {
		h.fail("CycleInvariant", "%s is freed with %d stack root(s)", o.Name, o.stack)
	}
	cs := h.children(o)
	o.freed = true
	if p := o.seq.Load(); p != nil {
		p.free()
	}
	for _, c := range cs {
		h.collectWhite(c)
	}
}

// logicalRC is InternalRC + ExternalRC: the live objects' field and
// payload references to o, and its stack roots.
func (h *Heap) logicalRC(o *Obj) int {
	n := o.stack
	for _, s := range h.objs {
		if s.freed {
			continue
		}
		if s.field.Load() == o {
			n++
		}
		if p := s.seq.Load(); p != nil {
			for _, e := range p.elems {
				if e == o {
					n++
				}
			}
		}
	}
	return n
}

// checkRC is RCInvariant after a merge, which leaves the buffers empty.
// It is checked at quiescence (Quiesce): while a mutator runs, a payload
// may be stored before its decrements are buffered.
func (h *Heap) checkRC() {
	if !h.checkingRC {
		return
	}
	var bad []string
	for _, o := range h.objs {
		if !o.freed {
			if l := h.logicalRC(o); o.rc != l {
				bad = append(bad, fmt.Sprintf("%s: rc %d, logical %d", o.Name, o.rc, l))
			}
		}
	}
	if len(bad) > 0 {
		h.fail("RCInvariant", "%s", strings.Join(bad, ", "))
	}
}

// Quiesce runs once every mutator is done: a last collection, which
// checks RCInvariant after its merge, then Safety: nothing reachable from
// a stack root is freed.
func (h *Heap) Quiesce() {
	h.checkingRC = true
	h.CollectCycles()
	h.lockW()
	defer h.unlockW()
	seen := map[*Obj]bool{}
	var visit func(o *Obj)
	visit = func(o *Obj) {
		if seen[o] {
			return
		}
		seen[o] = true
		if o.freed {
			h.fail("Safety", "%s is reachable from a stack root but freed", o.Name)
			return
		}
		for _, c := range h.children(o) {
			visit(c)
		}
	}
	for _, o := range h.objs {
		if o.stack > 0 {
			visit(o)
		}
	}
}
