package engine

import (
	"fmt"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"runtime"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// lockState is the scheduler's model of a Mutex or RWMutex during one
// execution (see syncstate.go).
type lockState struct {
	id    int32 // names the lock in the explorer's block sets
	rw    bool
	tried int8 // 1: some TryLock observes this lock, 2: none does, 0: not known yet
	// RWMutex: 1: both read- and write-locked somewhere, so a read lock
	// ends a block (see "A waiting writer"); 2: not known to be; 0: not
	// looked up yet. readSeen, writeSeen: in this execution.
	mixed               int8
	readSeen, writeSeen bool
	addr                unsafe.Pointer
	writer              *thread // the Mutex holder, or the RWMutex writer
	pending             bool    // RWMutex: the writer has announced itself and waits for readers to leave
	readers             []readHold
	// happens-before (package races): the releases of Unlock, and of RUnlock
	clocks races.LockClocks
}

type readHold struct {
	t *thread
	n int32
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
		t.r.guide.traceLock(t, l, true, t.r.lockName(l))
	}
}

func (t *thread) drop(l *lockState) {
	t.r.race.Release(t.idx, l.id)
	if t.r.trace {
		t.r.guide.traceLock(t, l, false, t.r.lockName(l))
	}
	for i := len(t.held) - 1; i >= 0; i-- {
		if t.held[i] == l {
			t.held = append(t.held[:i], t.held[i+1:]...)
			return
		}
	}
}

// acquireFailed handles a lock enter that cannot proceed. A thread that
// holds the lock for writing can never get it (Go's locks are not
// reentrant), nor can a reader asking again while a writer waits for it to
// leave; otherwise the block is abandoned and the thread joins the lock's
// block set.
func (r *run) acquireFailed(t *thread, l *lockState, mode string) {
	switch {
	case l.writer == t:
		r.selfDeadlock(t, l, mode)
	case l.pending && l.owns2(t):
		r.readerWriterCycle(t, l)
	}
	if !r.exploring {
		r.diverged(t, "a replayed block could not acquire a lock")
	}
	if r.trace {
		r.guide.traceWant(t, l)
	}
	if r.dd {
		r.reverseLockChain(t, l, mode)
	}
	r.stats.Aborted++
	r.strat.LockFailed(l.id, callerPC(4)) // past the drop-in type's method in package scheduler
	r.end(EndAbort)
	t.sleep()
}

// reverseLockChain looks for a lock cycle when t cannot acquire l (package
// deadlock's LockChain). The position skips 5 frames (deadlock.go).
func (r *run) reverseLockChain(t *thread, l *lockState, mode string) {
	if f, key := r.deadlocks.LockChain(t, l, mode); f != nil {
		f.Pos = callerPos(5)
		r.addFinding(f, key)
	}
}

// selfDeadlock: t wants a lock it holds itself (Go's locks are not
// reentrant, and a writer cannot wait for itself as a reader). It can never
// proceed; the path ends here.
func (r *run) selfDeadlock(t *thread, l *lockState, mode string) {
	if r.exploring && r.dd {
		r.addFinding(r.deadlocks.SelfDeadlock(t, l, mode, callerPos(5)))
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
		r.addFinding(r.deadlocks.ReaderWriterCycle(t, l, callerPos(5)))
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
	if name := r.heap.describe(uintptr(l.addr)); name != "" {
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
func (r *run) lockKey(addr unsafe.Pointer) (sched.CanonAccess, bool) {
	switch kind, reg := r.heap.classify(uintptr(addr)); kind {
	case sched.RegionHeap:
		return sched.CanonAccess{Kind: sched.RegionHeap, Key: reg.key, Off: uintptr(addr) - reg.base}, true
	case sched.RegionGlobal:
		return sched.CanonAccess{Kind: sched.RegionGlobal, Addr: uintptr(addr)}, true
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
			r.strat.Access(uintptr(l.addr), 1, true)
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
func (r *run) learnt(flag *int8, addr unsafe.Pointer, set map[sched.CanonAccess]bool, all bool) bool {
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
			r.strat.Access(uintptr(l.addr), 1, true)
		}
	}
}

// Mutex is a drop-in replacement for sync.Mutex, of the same size.
type Mutex struct {
	native sync.Mutex
}

// Lock locks m.
func (m *Mutex) Lock() {
	r, t := enter()
	if r == nil {
		m.native.Lock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(m), false)
	r.syncEnter(unsafe.Pointer(m), false)
	if l.writer != nil {
		r.acquireFailed(t, l, "Lock")
	}
	l.writer = t
	t.hold(l)
	r.race.Locked(t.idx, &l.clocks, true)
	r.acquired(t, l, false)
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	r, t := enter()
	if r == nil {
		return m.native.TryLock()
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(m), false)
	// The outcome observes the lock, so the attempt is a write to it even
	// without -sync-deps.
	r.syncEnter(unsafe.Pointer(m), true)
	r.triedLock(t, l)
	if l.writer != nil {
		r.yield(t) // a failed attempt ends a block too (see above)
		return false
	}
	l.writer = t
	t.hold(l)
	r.race.Locked(t.idx, &l.clocks, true)
	r.acquired(t, l, false) // a TryLock elsewhere may observe it held (see above)
	return true
}

// Unlock unlocks m; as in Go, it may be called by another goroutine than
// the one that locked it.
func (m *Mutex) Unlock() {
	r, t := enter()
	if r == nil {
		m.native.Unlock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(m), false)
	if l.writer == nil {
		r.fatal(t, "sync: unlock of unlocked mutex")
	}
	r.releaseWriter(t, l)
	r.lockExit(t, l)
}

func (r *run) releaseWriter(t *thread, l *lockState) {
	r.race.Unlocked(t.idx, &l.clocks, true)
	h := l.writer
	l.writer = nil
	h.drop(l)
	if h == t {
		t.lastLock = l
	}
}

// RWMutex is a drop-in replacement for sync.RWMutex. Like Go's, it prefers
// writers: once a writer waits for the readers to leave, new readers wait.
type RWMutex struct {
	native sync.RWMutex
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	r, t := enter()
	if r == nil {
		rw.native.Lock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	r.seenRW(t, l, false)
	// Who enters a mixed RWMutex first is observable (a waiting writer
	// blocks new readers), so the enter is a write to it for ExitBlock-RW
	// even without -sync-deps.
	r.syncEnter(unsafe.Pointer(rw), r.mixedRW(l))
	if l.writer != nil {
		// Another writer holds the lock or waits for readers: as with a
		// Mutex, the block is abandoned.
		r.acquireFailed(t, l, "Lock")
	}
	l.writer = t
	t.hold(l)
	if len(l.readers) == 0 {
		r.race.Locked(t.idx, &l.clocks, true)
		r.acquired(t, l, false)
		return
	}
	// The writer announces itself: from now on readers wait. That is
	// observable by other goroutines, so unlike a failed acquisition it is
	// not undone; the writer waits, like a Cond waiter, for the readers to
	// leave.
	if l.owns2(t) {
		r.selfDeadlock(t, l, "Lock")
	}
	l.pending = true
	if r.exploring && r.dd {
		r.reverseLockChain(t, l, "Lock")
	}
	r.parkHere(t, "rwmutex (writer waiting for readers)", l.id)
	r.race.Locked(t.idx, &l.clocks, true)
	r.acquired(t, l, false)
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

// TryLock tries to lock rw for writing.
func (rw *RWMutex) TryLock() bool {
	r, t := enter()
	if r == nil {
		return rw.native.TryLock()
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	r.syncEnter(unsafe.Pointer(rw), true)
	r.triedLock(t, l)
	if l.writer != nil || len(l.readers) > 0 {
		r.yield(t) // a failed attempt ends a block too (see above)
		return false
	}
	l.writer = t
	t.hold(l)
	r.race.Locked(t.idx, &l.clocks, true)
	r.acquired(t, l, false)
	return true
}

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() {
	r, t := enter()
	if r == nil {
		rw.native.Unlock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	if l.writer == nil || l.pending {
		r.fatal(t, "sync: Unlock of unlocked RWMutex")
	}
	r.releaseWriter(t, l)
	r.lockExit(t, l)
}

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	r, t := enter()
	if r == nil {
		rw.native.RLock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	r.seenRW(t, l, true)
	// Who enters a mixed RWMutex first is observable (a waiting writer
	// blocks new readers), so the enter is a write to it for ExitBlock-RW
	// even without -sync-deps.
	r.syncEnter(unsafe.Pointer(rw), r.mixedRW(l))
	if l.writer != nil {
		r.acquireFailed(t, l, "RLock")
	}
	l.addReader(t)
	r.race.Locked(t.idx, &l.clocks, false)
	r.acquired(t, l, true)
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

// TryRLock tries to lock rw for reading.
func (rw *RWMutex) TryRLock() bool {
	r, t := enter()
	if r == nil {
		return rw.native.TryRLock()
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	r.syncEnter(unsafe.Pointer(rw), true)
	r.triedLock(t, l)
	if l.writer != nil {
		r.yield(t) // a failed attempt ends a block too (see above)
		return false
	}
	l.addReader(t)
	r.race.Locked(t.idx, &l.clocks, false)
	r.acquired(t, l, true)
	return true
}

// RUnlock undoes a single RLock call.
func (rw *RWMutex) RUnlock() {
	r, t := enter()
	if r == nil {
		rw.native.RUnlock()
		return
	}
	r.opPoint(t)
	r.event(t)
	l := r.lockOf(unsafe.Pointer(rw), true)
	if len(l.readers) == 0 {
		r.fatal(t, "sync: RUnlock of unlocked RWMutex")
	}
	// Go lets another goroutine release a read lock; take t's own hold if
	// it has one.
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
	}
	if h == t {
		t.lastLock = l
	}
	if len(l.readers) == 0 && l.pending {
		// The last reader left: the waiting writer holds the lock now.
		l.pending = false
		r.wakeUp(l.writer, -1)
	}
	r.lockExit(t, l)
}

// RLocker returns a Locker that locks rw for reading.
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }
