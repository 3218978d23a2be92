package engine

import (
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"github.com/xbtest/xbtest/settings"
)

// The primitives the drop-in objects of package scheduler/internal/syncobj
// are built on: their list, and the order an operation calls them in, are
// the package doc's ("Primitives of the drop-in objects").

// G is a controlled goroutine of an execution, as a drop-in object sees it.
type G = thread

// Enter identifies the goroutine calling an object's operation: nil when
// no execution is under way (the object behaves natively). A goroutine of
// an execution being torn down unwinds (see enter).
func Enter() *G {
	_, t := enter()
	return t
}

// Index is the goroutine's creation index, which package races and the
// explorer name it by.
func (t *G) Index() int32 { return t.idx }

// OpPoint is the scheduling point an operation may start with; call it
// before Event.
func (t *G) OpPoint() { t.r.opPoint(t) }

// Event counts the operation as one scheduling event of t.
func (t *G) Event() { t.r.event(t) }

// EndBlock ends t's atomic block (a lock exit or an operation that counts
// as one): the explorer may run another goroutine before t goes on.
func (t *G) EndBlock() { t.r.yield(t) }

// Park blocks t until another goroutine wakes it (Wake) and the explorer
// schedules it; on ("mutex", "chan receive"...) and the object's id say
// what it waits for in deadlock reports and the timeline.
func (t *G) Park(on string, obj int32) { t.r.parkHere(t, on, obj) }

// Wake makes the waiting goroutine w runnable; relock is the id of the
// lock it must take again (a Cond waiter) if that lock is held, else -1.
func (t *G) Wake(w *G, relock int32) { t.r.wakeUp(w, relock) }

// WokeMidBlock: t woke a goroutine that may run before the rest of t's
// block (a Cond signalled without its lock): a scheduling point the
// explorer branches at, as after a go statement.
func (t *G) WokeMidBlock() { t.r.wokeMidBlock(t) }

// Choose returns the option taken at a choice point of t (which waiter a
// Signal wakes, which ready case a select takes): a branch of the
// exploration, recorded in schedules. The first option is the first
// schedule's.
func (t *G) Choose(options []int32) int32 { return t.r.choice(t, options) }

// DataAccess tells the explorer that the operation reads or writes data of
// the object (a WaitGroup's counter, a channel's buffer, an atomic
// variable).
func (t *G) DataAccess(addr unsafe.Pointer, size uintptr, write bool) {
	t.r.dataAccess(addr, size, write)
}

// SyncEnter tells the explorer of a lock enter or another synchronization
// a new goroutine could interfere with: under -sync-deps (or always) a
// write to the object, otherwise a note for spawn branches.
func (t *G) SyncEnter(addr unsafe.Pointer, always bool) { t.r.syncEnter(addr, always) }

// Races is the execution's race detection, for the happens-before edges of
// the object's operations.
func (t *G) Races() *races.Races { return &t.r.race }

// Fatal reports an unrecoverable runtime error of the program ("fatal
// error: " msg, at the first caller outside xbtest) and ends the execution.
func (t *G) Fatal(msg string) { t.r.fatal(t, msg) }

// NewObject numbers a synchronization object in this execution.
func (t *G) NewObject() int32 { return t.r.newObj() }

// ObjectTables is the per-execution state of the drop-in objects: the
// object package's, kept by the execution, reset with each execution and
// never read by the engine.
type ObjectTables interface{ Reset() }

// Objects returns this execution's object tables, made by mk the first
// time (executions of an exploration reuse them).
func (t *G) Objects(mk func() ObjectTables) ObjectTables {
	if t.r.objs == nil {
		t.r.objs = mk()
	}
	return t.r.objs
}

// MadeByBody reports whether addr is in memory the test body allocated in
// this execution (not a package's variable or memory made before).
func (t *G) MadeByBody(addr unsafe.Pointer) bool {
	kind, _ := t.r.heap.classify(uintptr(addr))
	return kind == sched.RegionHeap
}

// ChangedState says that the execution changed package state that the
// driver's fingerprint may not see (why, for the driver's report).
func (t *G) ChangedState(why string) { t.r.changed = why }

// Wrote notes that t wrote shared memory (an atomic store): progress, for
// the step bound's report of a goroutine that spins without it.
func (t *G) Wrote() { t.wroteAt = t.steps }

// Epoch numbers the execution, uniquely in the process: state an object
// keeps in itself rather than in the tables (a Pool's items) is dropped
// when it changes.
func (t *G) Epoch() uint64 { return t.r.epoch }

// RelaxedCASStart starts a compare-and-swap that -cas relaxed makes no
// fence (under -memory pso, with stores pending): its scheduling point and
// event without a fence, and, if a store to the variable itself is
// pending, a block boundary and that store's commit (package storebuf,
// "Fences"). It reports false, having done nothing, when the CAS is an
// ordinary atomic operation, a full fence; otherwise the caller goes on
// from step 3 of an operation.
func (t *G) RelaxedCASStart(addr unsafe.Pointer, size uintptr) bool {
	r := t.r
	if r.cfg.CAS != settings.RelaxedCAS || r.mem != settings.PSO || t.sb.Pending == 0 {
		return false
	}
	r.opPoint(t)
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	if storebuf.BufferedAt(&t.sb, uintptr(addr), size) {
		// As a fence does: a block boundary first, so that flushes and
		// other goroutines can run while the stores are pending.
		r.yield(t)
		r.buf.DrainAt(&t.sb, uintptr(addr), size)
	}
	return true
}

// Cond over this package's locks. Until Mutex and RWMutex move to package
// syncobj, a Cond's L that is one of them is released and relocked here.

// ReleaseForWait releases l for a Cond.Wait if it is this package's Mutex
// or RWMutex (held for writing; "fatal error: sync: unlock of unlocked
// mutex" if not) and reports whether it was: releasing it and starting to
// wait are then one step.
func (t *G) ReleaseForWait(l sync.Locker) bool {
	s, ok := t.r.dropInLock(l)
	if !ok {
		return false
	}
	// As in Go, whoever locked it (mutexes have no owner).
	if s.writer == nil || s.pending {
		t.r.fatal(t, "sync: unlock of unlocked mutex")
	}
	t.r.releaseWriter(t, s)
	t.r.released(s)
	return true
}

// HeldLock returns the id of l if it is this package's Mutex or RWMutex and
// held for writing (a woken Cond waiter must take it again), else -1.
func (t *G) HeldLock(l sync.Locker) int32 {
	if s, ok := t.r.dropInLock(l); ok && s.writer != nil {
		return s.id
	}
	return -1
}

func (r *run) dropInLock(l sync.Locker) (*lockState, bool) {
	switch l := l.(type) {
	case *Mutex:
		return r.lockOf(unsafe.Pointer(l), false), true
	case *RWMutex:
		return r.lockOf(unsafe.Pointer(l), true), true
	}
	return nil, false
}
