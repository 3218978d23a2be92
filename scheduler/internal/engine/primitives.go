package engine

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/races"
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
// before Event. Under Algorithm Brute every operation after another one
// starts with a point, and at access granularity one that follows an
// access (brute.go).
func (t *G) OpPoint() {
	r := t.r
	if r.accessed {
		t.unfenced = true // the operation's own event fences (package storebuf)
		r.event(t)
		t.unfenced = false
		r.transfer(t, r.point(t, passKind(r.buf.OpPass(&t.sb)))) // package storebuf
	}
	if !r.brute {
		return
	}
	if r.opsSince > 0 {
		r.yield(t)
	}
	r.opsSince++
}

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
// block (a Cond signalled without its lock, which Go allows and Java's
// notify does not; a subtest releasing T.Run): a scheduling point the
// explorer branches at, as after a go statement (internal/exitblock,
// "Spawn branches").
func (t *G) WokeMidBlock() {
	r := t.r
	if r.exploring {
		r.strat.EnabledMidBlock()
	}
	r.transfer(t, r.point(t, ptWake))
}

// Choose returns the option taken at a choice point of t (which waiter a
// Signal wakes, which ready case a select takes): a branch of the
// exploration, recorded in schedules. The first option is the first
// schedule's.
func (t *G) Choose(options []int32) int32 { return t.r.choice(t, options) }

// DataAccess tells the explorer that the operation reads or writes data of
// the object (a WaitGroup's counter, a channel's buffer, an atomic
// variable).
func (t *G) DataAccess(addr unsafe.Pointer, size uintptr, write bool) {
	if !write {
		t.readSpread |= spreadBit(uintptr(addr))
	}
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

// ObjectTables is the per-execution state of one package of drop-in
// objects (syncobj's, chanobj's): the package's, kept by the execution in
// the package's Slot, reset with each execution and never read by the
// engine.
type ObjectTables interface{ Reset() }

// Slot is where one package of drop-in objects keeps its tables in every
// execution.
type Slot int

var slots Slot

// NewSlot reserves a Slot for a package of drop-in objects; call it when
// the package is initialised.
func NewSlot() Slot {
	slots++
	return slots - 1
}

// Objects returns this execution's tables in slot s, made by mk the first
// time (executions of an exploration reuse them).
func (t *G) Objects(s Slot, mk func() ObjectTables) ObjectTables { return t.r.objects(s, mk) }

// MadeByBody reports whether addr is in memory the test body allocated in
// this execution (not a package's variable or memory made before).
func (t *G) MadeByBody(addr unsafe.Pointer) bool {
	return t.r.heap.Registered(uintptr(addr))
}

// ChangedState says that the execution changed package state that the
// driver's fingerprint may not see (why, for the driver's report).
func (t *G) ChangedState(why string) { t.r.changed = why }

// Wrote notes that t wrote shared memory (an atomic store): progress, for
// the step bound's report of a goroutine that spins without it.
func (t *G) Wrote() { t.wroteAt, t.readSpread = t.steps, 0 }

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
	t.OpPoint()
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

// Locks. The drop-in Mutex and RWMutex (package syncobj) keep their state
// in the engine's lock bookkeeping, Lock, which deadlock detection, the
// race detector's locksets and the timeline read; where a lock operation
// ends a block, and what an exploration learns of that (locks.go: TryLock
// and the atomicity of blocks, a waiting writer), is the engine's too. A
// lock enter: Lock, SyncEnter, WaitRelease while the goroutine holds it
// itself, AcquireFailed if another does (the block is abandoned),
// TakeWrite or TakeRead, the race detector's Locked, Acquired.
// A lock exit: ReleaseWrite or ReleaseRead, then LockExit.

// Lock is a Mutex or RWMutex during one execution.
type Lock = lockState

// Lock returns this execution's state of the Mutex (rw false) or RWMutex
// at addr.
func (t *G) Lock(addr unsafe.Pointer, rw bool) *Lock { return t.r.lockOf(addr, rw) }

// ID names the lock in block sets and reports.
func (l *Lock) ID() int32 { return l.id }

// Writer is the goroutine holding l for writing (or, with Pending, waiting
// for the readers to leave), or nil.
func (l *Lock) Writer() *G { return l.writer }

// Pending reports whether l's writer waits for the readers to leave.
func (l *Lock) Pending() bool { return l.pending }

// SetPending says whether l's writer waits for the readers to leave.
func (l *Lock) SetPending(p bool) { l.pending = p }

// Readers is the number of goroutines holding l for reading.
func (l *Lock) Readers() int { return len(l.readers) }

// ReadBy reports whether t holds l for reading.
func (l *Lock) ReadBy(t *G) bool { return l.owns2(t) }

// Clocks are l's happens-before clocks, for the race detector's Locked
// and Unlocked.
func (l *Lock) Clocks() *races.LockClocks { return &l.clocks }

// TakeWrite makes t l's writer, holding it.
func (t *G) TakeWrite(l *Lock) {
	l.writer = t
	t.hold(l)
}

// TakeRead makes t hold l for reading once more.
func (t *G) TakeRead(l *Lock) { l.addReader(t) }

// ReleaseWrite releases l's writer (whoever it is: Go's mutexes have no
// owner), with the happens-before edge of the release.
func (t *G) ReleaseWrite(l *Lock) { t.r.releaseWriter(t, l) }

// ReleaseRead releases one read hold of l, t's own if it has one (Go lets
// another goroutine release a read lock), with its happens-before edge.
func (t *G) ReleaseRead(l *Lock) { t.r.releaseReader(t, l) }

// Acquired ends a successful lock enter: a block boundary if the lock is
// tried somewhere, or for a read lock of an RWMutex that is also
// write-locked (locks.go).
func (t *G) Acquired(l *Lock, read bool) { t.r.acquired(t, l, read) }

// LockExit is the thesis's lock_exit after a release: the lock's block
// set is re-enabled and the block ends.
func (t *G) LockExit(l *Lock) { t.r.lockExit(t, l) }

// Released tells the explorer that l was released without a lock exit (a
// Cond.Wait letting go of c.L, which waits in the same step).
func (t *G) Released(l *Lock) { t.r.released(l) }

// TriedLock: a TryLock observes l (locks.go); the exploration may start
// over knowing it.
func (t *G) TriedLock(l *Lock) { t.r.triedLock(t, l) }

// SeenRW records a read or write lock enter of an RWMutex; the
// exploration may start over knowing it is both (locks.go).
func (t *G) SeenRW(l *Lock, read bool) { t.r.seenRW(t, l, read) }

// MixedRW reports whether the RWMutex l is known to be both read- and
// write-locked: its enters are then writes to it for ExitBlock-RW.
func (t *G) MixedRW(l *Lock) bool { return t.r.mixedRW(l) }

// DetectsDeadlocks reports whether lock cycles are looked for now (deadlock
// detection is on and the execution explores): a writer that starts
// waiting for readers calls ReverseLockChain then.
func (t *G) DetectsDeadlocks() bool { return t.r.exploring && t.r.dd }
