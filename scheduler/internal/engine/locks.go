package engine

import (
	"fmt"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"runtime"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// lockState is the scheduler's model of a Mutex or RWMutex during one
// execution (see syncTables below): the lock bookkeeping that deadlock
// detection, the race detector's locksets and the timeline read, and the
// explorer's name for the lock. The drop-in locks (package syncobj) see it
// as Lock, through its methods and G's (primitives.go).
type lockState struct {
	id    int32 // names the lock in the explorer's block sets
	rw    bool
	tried int8 // 1: some TryLock observes this lock, 2: none does, 0: not known yet
	// RWMutex: 1: both read- and write-locked somewhere, so a read lock
	// ends a block (see "A waiting writer"); 2: not known to be; 0: not
	// looked up yet. readSeen, writeSeen: in this execution.
	mixed               int8
	readSeen, writeSeen bool
	// addr is the lock's address; obj the lock itself. If the program may
	// observe a collection (collectable), obj is nil once the lock is
	// free: a table of the execution does not keep a dropped object alive
	// (a test may wait for its collection), but a held lock, whose state a
	// new lock at its address must not inherit, stays.
	addr    uintptr
	obj     unsafe.Pointer
	writer  *thread // the Mutex holder, or the RWMutex writer
	pending bool    // RWMutex: the writer has announced itself and waits for readers to leave
	readers []readHold
	// the writer, waiting in Lock (or RLock) for another goroutine to
	// release the lock it holds itself (WaitRelease)
	ownWaiter *thread
	// happens-before (package races): the releases of Unlock, and of RUnlock
	clocks races.LockClocks
}

type readHold struct {
	t *thread
	n int32
}

// The drop-in locks (package syncobj) have exactly the size of those they
// replace and hold the native one, which works when no execution is under
// way; what the scheduler knows of a lock during an execution lives here,
// in tables of the execution keyed by the lock's address, and is forgotten
// with the execution. (The other drop-in objects keep theirs in package
// syncobj's tables, which the execution holds as its ObjectTables.)

// syncTables are the per-execution states of the locks.
type syncTables struct {
	locks map[uintptr]*lockState
	// states handed out, reused by later executions
	lockPool []*lockState
	nlocks   int
}

func (s *syncTables) reset() {
	if s.locks == nil {
		s.locks = map[uintptr]*lockState{}
	}
	clear(s.locks)
	s.nlocks = 0
}

// lockOf returns this execution's state of the Mutex or RWMutex at addr.
func (r *run) lockOf(addr unsafe.Pointer, rw bool) *lockState {
	s := &r.sync
	if l := s.locks[uintptr(addr)]; l != nil {
		l.obj = addr
		return l
	}
	if s.nlocks == len(s.lockPool) {
		s.lockPool = append(s.lockPool, new(lockState))
	}
	l := s.lockPool[s.nlocks]
	s.nlocks++
	readers, clk := l.readers[:0], l.clocks
	clk.W.Reset()
	clk.R.Reset()
	*l = lockState{id: r.newObj(), rw: rw, addr: uintptr(addr), obj: addr, readers: readers, clocks: clk}
	s.locks[uintptr(addr)] = l
	return l
}

// forget drops the states of the locks in [base, end): a new object took
// the place of a dead one there (a held lock is never dead: obj keeps it).
func (s *syncTables) forget(base, end uintptr) {
	for a := range s.locks {
		if base <= a && a < end {
			delete(s.locks, a)
		}
	}
}

// freed lets the object of a lock that nobody holds be collected (if the
// program may observe it, see collectable).
func (l *lockState) freed() {
	if collectable && l.writer == nil && len(l.readers) == 0 {
		l.obj = nil
	}
}

func (r *run) newObj() int32 { r.nobj++; return r.nobj }

// owners returns the threads holding l (a pending writer does not hold it).
func (l *lockState) owners() []*thread {
	var o []*thread
	if l.writer != nil && !l.pending {
		o = append(o, l.writer)
	}
	for _, h := range l.readers {
		o = append(o, h.t)
	}
	return o
}

func (l *lockState) kind() string {
	if l.rw {
		return "rwmutex"
	}
	return "mutex"
}

// syncEnter records a lock enter (or another synchronization a new goroutine
// could interfere with) for the explorer: under -sync-deps a write to the
// object, otherwise only a note for spawn branches.
func (r *run) syncEnter(addr unsafe.Pointer, always bool) {
	if !r.exploring {
		return
	}
	if r.cfg.SyncDeps || always {
		r.strat.Access(uintptr(addr), 1, true)
	}
	r.strat.Observe(uintptr(addr))
}

// dataAccess records a read or write of data the operation itself touches
// (a channel's buffer, a WaitGroup counter, an atomic variable).
func (r *run) dataAccess(addr unsafe.Pointer, size uintptr, write bool) {
	if r.exploring {
		r.strat.SyncAccess(uintptr(addr), size, write || r.cfg.SyncDeps)
	}
}

func (t *thread) hold(l *lockState) {
	t.held = append(t.held, l)
	t.r.race.Acquire(t.idx, l.id, l.writer == t, l)
	if t.r.trace {
		t.r.guide.TraceLock(t.idx, t.id(), l, l.writer != t, true, t.r.lockName(l))
	}
}

func (t *thread) drop(l *lockState) {
	t.r.race.Release(t.idx, l.id)
	if t.r.trace {
		t.r.guide.TraceLock(t.idx, t.id(), l, l.writer != t, false, t.r.lockName(l))
	}
	for i := len(t.held) - 1; i >= 0; i-- {
		if t.held[i] == l {
			t.held = append(t.held[:i], t.held[i+1:]...)
			return
		}
	}
}

// AcquireFailed handles a lock enter that cannot proceed. A reader asking
// again while a writer waits for it to leave can never get it; otherwise
// the block is abandoned and the thread joins the lock's block set. (A
// thread that holds the lock for writing itself waits instead for another
// goroutine to release it, WaitRelease.) Call it from the drop-in lock's
// method: the position of the blocked enter is past that method and
// package scheduler's forwarder.
func (t *G) AcquireFailed(l *Lock, mode string) {
	r := t.r
	if l.pending && l.owns2(t) {
		r.readerWriterCycle(t, l)
	}
	if !r.exploring {
		r.diverged(t, "a replayed block could not acquire a lock")
	}
	if r.trace {
		r.guide.TraceWant(t.idx, l)
	}
	if r.dd {
		t.ReverseLockChain(l, mode)
	}
	r.stats.Aborted++
	r.strat.LockFailed(l.id, callerPC(4)) // past the drop-in type's method in package scheduler
	r.end(EndAbort)
	t.sleep()
}

// ReverseLockChain looks for a lock cycle when t cannot acquire l (package
// deadlock's LockChain). The position skips 5 frames (deadlock.go): call it
// from the drop-in lock's method or from AcquireFailed.
func (t *G) ReverseLockChain(l *Lock, mode string) {
	r := t.r
	if f, key := r.deadlocks.LockChain(t, l, mode); f != nil {
		f.Pos = srcpos.Caller(5)
		r.addFinding(f, key)
	}
}

// SelfDeadlock: t write-locks an RWMutex it holds for reading (a writer
// cannot wait for itself as a reader). It can never proceed; the path
// ends here. Call it from the drop-in lock's method (the position skips 5
// frames).
func (t *G) SelfDeadlock(l *Lock, mode string) {
	r := t.r
	if r.exploring && r.dd {
		r.addFinding(r.deadlocks.SelfDeadlock(t, l, mode, srcpos.Caller(5)))
	}
	if !r.exploring {
		r.diverged(t, "a replayed block deadlocked on its own lock")
	}
	r.stats.Schedules++
	r.end(EndPath)
	t.sleep()
}

// readerWriterCycle: t holds l for reading and asks again while a writer
// waits for the readers to leave; the writer waits for t, t for the writer.
func (r *run) readerWriterCycle(t *thread, l *lockState) {
	if r.exploring && r.dd {
		r.addFinding(r.deadlocks.ReaderWriterCycle(t, l, srcpos.Caller(5)))
	}
	if !r.exploring {
		r.diverged(t, "a replayed block deadlocked on a read lock")
	}
	r.stats.Schedules++
	r.end(EndPath)
	t.sleep()
}

// lockName names l in reports: the variable that holds it, if known.
func (r *run) lockName(l *lockState) string {
	if l == nil {
		return "?"
	}
	id := fmt.Sprintf("%s#%d", l.kind(), l.id)
	if name := r.heap.Describe(l.addr); name != "" {
		return name + " (" + id + ")"
	}
	return id
}

func callerPC(skip int) uintptr {
	var pc [1]uintptr
	if runtime.Callers(skip+1, pc[:]) == 0 {
		return 0
	}
	return pc[0]
}

// TryLock and the atomicity of blocks.
//
// ExitBlock makes a critical section without an inner boundary atomic: no
// other goroutine can observe its middle, since it would block on the lock
// (and a failed lock enter is undone). TryLock observes the middle: it
// fails, without blocking, while another goroutine holds the lock. So once
// a lock is seen being tried, acquiring it ends a block (when another
// goroutine is enabled), which lets the others run while it is held; and
// because earlier branches of the exploration were cut without that
// boundary, the exploration starts over knowing the lock. A successful
// TryLock acquires it too, and its release is a write to it (a TryLock reads
// it), so that ExitBlock-RW does not take the two orders of a release and a
// TryLock for one. A TryLock that fails ends a block as well: it observed
// the holder, so a lock enter that fails later must not abandon the block
// back to before the attempt (the retry would then succeed, and the failure
// that was seen would never be explored). (All found by the brute-force
// explorer, issue 18: a TryLock failing while another goroutine held the
// lock it took by TryLock was never explored.)

// Learnt is what an exploration learns about the program that moves block
// boundaries: the locks some TryLock observes (tried), the RWMutexes both
// read- and write-locked (mixed); *All when one of them has no name across
// executions. An exploration that learns something starts over (restart)
// and keeps it, and so do the guided executions that follow a finding's
// schedule. It is the driver's, not the strategy's: where blocks end is
// the engine's business, whatever explores them.
type Learnt struct {
	tried, mixed       map[sched.CanonAccess]bool
	triedAll, mixedAll bool
	flush              storebuf.Passes // store buffers (package storebuf)
}

func NewLearnt() *Learnt {
	return &Learnt{tried: map[sched.CanonAccess]bool{}, mixed: map[sched.CanonAccess]bool{}}
}

// lockKey names a lock across executions, as read/write sets do.
func (r *run) lockKey(addr uintptr) (sched.CanonAccess, bool) {
	r.heap.Refresh() // a name kept across executions (see location.Index)
	switch kind, reg := r.heap.Classify(addr); kind {
	case sched.RegionHeap:
		return sched.CanonAccess{Kind: sched.RegionHeap, Key: reg.Key, Off: addr - reg.Base}, true
	case sched.RegionGlobal:
		return sched.CanonAccess{Kind: sched.RegionGlobal, Addr: addr}, true
	}
	return sched.CanonAccess{}, false
}

// triedLock is called by TryLock and TryRLock.
func (r *run) triedLock(t *thread, l *lockState) {
	if !r.exploring || l.tried == 1 {
		return
	}
	kn := r.known
	l.tried = 1
	if k, ok := r.lockKey(l.addr); ok {
		if kn.tried[k] {
			return
		}
		kn.tried[k] = true
	} else {
		if kn.triedAll {
			return
		}
		kn.triedAll = true
	}
	r.restart = true
	r.end(EndRestart)
	t.sleep()
}

// acquired is called after a lock enter succeeded: a block boundary if the
// lock is tried somewhere, or if it is a read lock of an RWMutex that some
// goroutine also write-locks.
func (r *run) acquired(t *thread, l *lockState, read bool) {
	r.learnt(&l.tried, l.addr, r.known.tried, r.known.triedAll)
	switch {
	case l.tried == 1 || read && r.mixedRW(l):
		if l.tried == 1 && r.exploring {
			// A TryLock reads the lock: taking it is a write to it
			// even without -sync-deps (ExitBlock-RW).
			r.strat.Access(l.addr, 1, true)
		}
		r.yield(t)
	case read:
		r.transfer(t, r.point(t, ptPass))
	}
}

// A waiting writer.
//
// In Java a failed monitor enter changes nothing: ExitBlock undoes it and
// postpones the thread until the monitor is released, so the middle of a
// critical section is never observed. A Go RWMutex's writer that finds
// readers is different: it announces itself (Lock has begun), and from then
// on every new RLock blocks, also one by a goroutine that already holds a
// read lock (the recursive read-lock deadlock), until the readers have left
// and the writer has had its turn. So while a read lock is held, whether a
// writer has started waiting is observable, and a read-held section is not
// atomic: once an RWMutex is seen both read- and write-locked, a read lock
// of it ends a block (when another goroutine is enabled), and, as with
// TryLock, the exploration starts over knowing it, since branches already
// cut did not have the boundary. A write-held section stays atomic: a
// reader or writer that finds it held is undone and waits, as in Java.

// seenRW records a read (or write) lock enter on an RWMutex and reports the
// lock as mixed when both kinds have now been seen on it in this execution.
func (r *run) seenRW(t *thread, l *lockState, read bool) {
	if !r.exploring || l.mixed == 1 {
		return
	}
	if read {
		l.readSeen = true
	} else {
		l.writeSeen = true
	}
	if !l.readSeen || !l.writeSeen || r.mixedRW(l) {
		return
	}
	kn := r.known
	l.mixed = 1
	if k, ok := r.lockKey(l.addr); ok {
		kn.mixed[k] = true
	} else {
		kn.mixedAll = true
	}
	r.restart = true
	r.end(EndRestart)
	t.sleep()
}

// mixedRW reports whether l is known to be read- and write-locked (also in
// a replayed prefix, whose blocks end where they ended when explored).
func (r *run) mixedRW(l *lockState) bool {
	if r.known == nil || !l.rw {
		return false
	}
	return r.learnt(&l.mixed, l.addr, r.known.mixed, r.known.mixedAll)
}

// learnt looks the lock at addr up, once per execution, in what the
// exploration learnt (set, all): flag is 0 until then, 1 if the lock is
// in it, 2 if not. It reports whether it is.
func (r *run) learnt(flag *int8, addr uintptr, set map[sched.CanonAccess]bool, all bool) bool {
	if *flag == 0 {
		*flag = 2
		if all {
			*flag = 1
		} else if len(set) > 0 {
			if k, ok := r.lockKey(addr); ok && set[k] {
				*flag = 1
			}
		}
	}
	return *flag == 1
}

// lockExit is the thesis's lock_exit: the lock's block set is re-enabled and
// the block may end.
func (r *run) lockExit(t *thread, l *lockState) {
	r.released(l)
	r.yield(t)
}

// released tells the explorer that l was released (a lock exit, or a
// Cond.Wait letting go of c.L).
func (r *run) released(l *lockState) {
	if r.exploring {
		r.strat.LockReleased(l.id)
		if l.tried == 1 {
			// A TryLock observes the release: the block that releases
			// and the one that tries do not commute (ExitBlock-RW).
			r.strat.Access(l.addr, 1, true)
		}
	}
}

func (r *run) releaseWriter(t *thread, l *lockState) {
	r.race.Unlocked(t.idx, &l.clocks, true)
	h := l.writer
	l.writer = nil
	l.freed()
	h.drop(l)
	if h == t {
		t.lastLock = l
	}
	if w := l.ownWaiter; w != nil {
		// Another goroutine released the lock its writer waits for
		// (WaitRelease): the writer tries again.
		l.ownWaiter = nil
		r.wakeUp(w, -1)
	}
}

// WaitRelease: t wants l, which it holds itself for writing. Go's locks
// are not reentrant, but neither are they a goroutine's ("A locked Mutex
// is not associated with a particular goroutine. It is allowed for one
// goroutine to lock a Mutex and then arrange for another goroutine to
// unlock it", package sync; an RWMutex alike): t waits, parked, until
// another goroutine releases l (otter hands its eviction lock to the
// goroutine that maintains the cache, then locks it again), and the
// drop-in lock's method then tries again. If none can, the path ends with
// t waiting on a lock it holds (deadlock's Stuck). Not a failed
// acquisition (AcquireFailed): l may have been taken in t's block, which
// ExitBlock would undo and then wait for a release that never comes.
func (t *G) WaitRelease(l *Lock) {
	l.ownWaiter = t
	t.r.parkHere(t, l.kind()+" (held by itself)", l.id)
}

func (r *run) releaseReader(t *thread, l *lockState) {
	i := 0
	for j := range l.readers {
		if l.readers[j].t == t {
			i = j
			break
		}
	}
	r.race.Unlocked(t.idx, &l.clocks, false)
	h := l.readers[i].t
	h.drop(l)
	if l.readers[i].n--; l.readers[i].n == 0 {
		l.readers = append(l.readers[:i], l.readers[i+1:]...)
		l.freed()
	}
	if h == t {
		t.lastLock = l
	}
}

// owns2 reports whether t holds l as a reader.
func (l *lockState) owns2(t *thread) bool {
	for _, h := range l.readers {
		if h.t == t {
			return true
		}
	}
	return false
}

func (l *lockState) addReader(t *thread) {
	for i := range l.readers {
		if l.readers[i].t == t {
			l.readers[i].n++
			t.hold(l)
			return
		}
	}
	l.readers = append(l.readers, readHold{t, 1})
	t.hold(l)
}
