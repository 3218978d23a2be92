package exitblock

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// The ExitBlock family (Bruening, "Systematic Testing of Multithreaded Java
// Programs", 1999, Ch. 2), as it reacts to the events of one execution.
//
// The thesis writes the algorithm as one loop that runs the current thread
// "until one of the following events occurs". Here the controlled goroutines
// run the program and call into the explorer at those events, through the
// strategy interface (sched.Strategy), so the loop is cut into its event
// handlers; the names and comments follow Figs 2.7, 2.9 and 2.12:
//
//	LOOP:                                   loop
//	  if (enabled is empty) ... pop ...      (engine: run.endPath); Next (driver: advance), nextStart
//	  curThread = choose a member of enabled loop
//	  RetPt = make new checkpoint            block.retPt (a depth of the path)
//	  if (lock_enter && held by another)     LockFailed
//	  if (curThread dies)                    Exit
//	  if (thread T starts)                   Spawned
//	  if (curThread performs a read/write)   Access
//	  if (lock_exit)                         LockReleased + Boundary
//	  if (curThread does a wait())           Park
//	  if (notify())                          Choose
//
// The engine (package scheduler/internal/engine) calls the handlers, the
// driver (package scheduler/internal/driver) Next; the files named below
// (locks.go, clock.go, tso.go) are the engine's: LockFailed and
// LockReleased in locks.go, Exit, Boundary and Park in run.go (dispatch),
// Spawned in goroutine.go, Access in memory.go (and locks.go, tso.go,
// fences.go), Choose in run.go, ChooseTick in clock.go.
//
// Three decisions the thesis leaves to its implementation (3.3.1) are made as
// it made them, because its path counts depend on them: a lock exit ends a
// block only when another thread is enabled; after a block the current thread
// keeps running if it is still enabled; a thread's death ends its block
// without a branch. A branch whose enabled set is empty explores nothing and
// is not pushed.
//
// Three additions, all for Go:
//
//   - Spawn branches. In Java every Thread.start() ends with a monitor exit,
//     so a new thread can never observe its parent between the start and the
//     parent's next lock exit; a Go statement has no such exit. When the part
//     of the parent's block after a `go` statement does something the child
//     could observe (a shared access or a synchronization other than a lock
//     exit), a branch is pushed that stops the parent right after the `go`
//     and lets the others, the child included, run first. When it does not
//     (the thesis's programs), nothing changes. A Cond.Signal or Broadcast
//     made without holding the Cond's lock is the same case (Java's notify
//     holds the monitor): the waiter it wakes can run at once.
//   - Waiting writers. A read lock of an RWMutex that is also write-locked
//     ends a block (locks.go, "A waiting writer"): a writer that waits for
//     the readers blocks new ones, which a reader can observe.
//   - Choice points. A Cond.Signal with several waiters and a select with
//     several ready cases are explored like notify in Fig 2.9, but each
//     choice point of a block has its own no_notify set (blockPlan), so a
//     block with two notifies does not explore the same pair of choices twice.
//   - Ticks. When nothing is enabled or delayed, virtual time advances to the
//     next deadline and the timers due fire (package scheduler/internal/vclock), which may enable
//     threads again (loop). The order of equal deadlines is a choice point
//     recorded with the block before the tick (ChooseTick).

// delayedThread is an entry of ExitBlock-RW's delayed set: the thread and the
// reads and writes of the block it executed just before the branch point.
// Under ExitBlock and ExitBlock-DD, rw is nil and the thread is re-enabled
// after the next block, whatever it touched.
type delayedThread struct {
	t  int32
	rw *sched.CanonRW
	// yield: the thread yielded (runtime.Gosched) a second time while
	// others could run and none did: it gives way until another thread's
	// block ends, whatever that block touches (see Yielded).
	yield bool
}

// ebState is what a branch restores besides the program state: the thesis's
// enabled set, delayed set and the block sets of locks. The wait set is not
// stored: threads parked on a Cond, channel or WaitGroup are parked in the
// re-executed program too.
type ebState struct {
	enabled sched.TSet
	delayed []delayedThread
	blocked []sched.Blocked
}

func (s *ebState) clone() ebState {
	return ebState{
		enabled: s.enabled.Clone(),
		delayed: append([]delayedThread(nil), s.delayed...),
		blocked: append([]sched.Blocked(nil), s.blocked...),
	}
}

// copyFrom makes s a copy of o, reusing s's storage.
func (s *ebState) copyFrom(o *ebState) {
	s.enabled.CopyFrom(&o.enabled)
	s.delayed = append(s.delayed[:0], o.delayed...)
	s.blocked = append(s.blocked[:0], o.blocked...)
}

// blockPlan makes a branch re-execute the block of its RetPt with another
// choice at one choice point: the first len(fixed) choice points take the
// recorded choices, the next one avoids exclude (its no_notify set).
type blockPlan struct {
	thread  int32
	fixed   []int32
	exclude []int32
	// tick: the plan re-executes the block with its own choices to take
	// another order of equal deadlines at the tick that follows it; the
	// block's other branches were pushed by its first execution.
	tick bool
}

// branch is a stack entry, the thesis's (RetPt, saved_enabled,
// saved_delayed, wait, no_notify): the program state after the first depth
// decisions of the current path (plus extra, for a spawn branch), the
// explorer's sets there, and for a notify or select branch the plan of the
// block to re-execute.
type branch struct {
	depth int
	extra *sched.Decision
	st    ebState
	plan  *blockPlan
	pb    pbBranch // preemption bounding's (pb.go)
}

// spawnPoint remembers where the current block started a goroutine.
type spawnPoint struct {
	event   int64
	st      ebState
	choices int
	allocs  int32
}

// block is the atomic block being executed.
type block struct {
	thread   int32       // -1: none yet in this execution
	open     bool        // the block is under way (not yet appended to the path)
	planned  bool        // the block re-executes a block for another notify/select choice (or is an oracle sibling)
	retPt    int         // RetPt: the path depth at which the block started
	old      ebState     // the state at RetPt ("the old State" of 3.3.1)
	rw       sched.RWSet // reads and writes of the block
	choices  []int32
	spawns   []spawnPoint
	after    timedSet // accesses after the first spawn, to compute a spawn branch's set
	lastSync int64    // event number of the block's last lock enter, notify or similar
	lastObj  uintptr  // the synchronization object the block touched last (fairness)
	allocs0  int32    // objects the thread had registered at RetPt
	// solo: at RetPt no other thread was enabled or delayed, so no branch
	// will ever carry this block's reads and writes; they are not recorded
	// (sequential code costs little). A spawn's log is still kept.
	solo bool
	// forced: a forced flush (flushorder.go), which no other order of
	// blocks may precede.
	forced bool
}

// Explorer is the ExitBlock family for one test: the stack of branches and
// the current path persist across executions; the rest describes the
// execution under way. It implements sched.Strategy, the only way the
// engine reaches it.
type Explorer struct {
	opt   Options
	stack []branch
	path  []sched.Decision
	start branch // where the next execution resumes exploring
	done  bool
	// abandoned: the execution's path leads nowhere (the oracle's infeasible
	// child); continue with the next branch on the stack.
	abandoned bool
	// low is the lowest the stack has been since this process was forked
	// (fork checkpoints): the branches below it are the parent's still.
	low int
	// The shape of the tree: branches pushed, the deepest block start.
	pushed, deepest int
	// dir steers a guided execution (Options.Director); nil while exploring.
	dir sched.Director
	// pb orders the branches by preemptions (Options.PreemptionBound, pb.go).
	pb *pbState

	// The execution under way, which the explorer reaches only through
	// the engine interface (sched.Engine).
	eng         sched.Engine
	st          ebState
	plan        *blockPlan
	tickPlan    *blockPlan // the plan continues into the tick after the block
	blk         block
	delayedRW   []*sched.RWSet // st.delayed[i]'s set in this execution's addresses
	needUnknown bool           // some delayed set has unknown accesses
	// thr is what the explorer keeps per thread of the execution under
	// way, by creation index (fairness: polls, yields). It starts over
	// with each execution (NewExecution), as the engine's threads do;
	// thrBuf holds the first few, so that a small test's table costs no
	// allocation.
	thr    []threadState
	thrBuf [8]threadState
	// events counts what is not polling (parks, exits, spawns, wake-ups,
	// ticks): a give-way counted at an older count is stale (pollTogether)
	events int
}

// threadState is what the explorer keeps per thread: the blocks it ended
// in a row at the objects of its last few (spinning), the boundaries it
// reached so with nothing else enabled (pollsAlone), and the path's length
// at its last runtime.Gosched (-1: none; Yielded).
type threadState struct {
	polls, alonePolls  pollCount
	yieldAt            int
	gaveWay, gaveWayAt int // fair give-ways counted since Explorer.events was gaveWayAt (pollTogether)
}

// Options configure an Explorer: which member of the family it is and the
// knobs the tests turn. The engine fills them from its Config.
type Options struct {
	// ReadWrite is ExitBlock-RW's pruning (Fig 2.12): a delayed thread
	// carries the reads and writes of its block and is re-enabled only by
	// a block they intersect. Without it (ExitBlock, ExitBlock-DD), any
	// block re-enables it. Deadlock detection (-DD) is the engine's.
	ReadWrite bool
	// FairBlocks is the fairness bound (settings.Settings.FairBlocks;
	// 0: none): see "Fairness" and "Polling alone".
	FairBlocks int
	// Oracle replaces the algorithm by exhaustive enumeration (tests, and
	// Algorithm Brute): at every block end, and with OracleSpawns at every
	// go statement too, each other enabled thread gets a branch.
	Oracle, OracleSpawns bool
	// NoSpawnBranches turns the spawn branches off (tests only): the
	// thesis's algorithm exactly.
	NoSpawnBranches bool
	// Director, if not nil, steers a guided execution.
	Director sched.Director
	// PreemptionBound explores the same tree by iterative preemption
	// bounding (pb.go) instead of depth-first.
	PreemptionBound bool
	// Sampler, if not nil, replaces the tree walk by samples, one path
	// each, taking its choices ("Sampling", at nextSample).
	Sampler sched.Sampler
}

var _ sched.Strategy = (*Explorer)(nil)

// New returns an explorer at the start of an exploration: its first
// execution runs the test from the beginning.
func New(o Options) *Explorer {
	ex := &Explorer{opt: o, dir: o.Director}
	ex.thr = ex.thrBuf[:0]
	ex.blk.thread = -1
	// The first execution starts from the beginning with the test goroutine
	// enabled; before a second goroutine exists no block can end, so the
	// thesis's "run program normally until 2nd thread is started" needs no
	// separate mode.
	ex.start.st.enabled.Add(0)
	if o.PreemptionBound && o.Sampler == nil && !o.Oracle {
		ex.pb = &pbState{}
		ex.start.pb.info.last = -1
	}
	return ex
}

// ReplayPrefix returns the decisions the next execution must replay.
func (ex *Explorer) ReplayPrefix() []sched.Decision {
	p := ex.path[:ex.start.depth]
	if ex.start.extra != nil {
		p = append(p[:len(p):len(p)], *ex.start.extra)
	}
	return p
}

// Begin is called when an execution has replayed its prefix: the explorer
// restores the branch's sets and returns the thread that runs next.
func (ex *Explorer) Begin(e sched.Engine) int32 {
	ex.eng = e
	b := &ex.start
	ex.path = ex.path[:b.depth]
	if b.extra != nil {
		ex.path = append(ex.path, *b.extra)
	}
	if ex.pb != nil {
		ex.pbBegin()
	}
	ex.st.copyFrom(&b.st)
	ex.plan = b.plan
	ex.tickPlan = nil
	if b.plan != nil && b.plan.thread < 0 {
		ex.plan, ex.tickPlan = nil, b.plan // re-chooses at the tick that opens the execution
	}
	ex.blk.thread, ex.blk.open = -1, false
	ex.delayedRW = ex.delayedRW[:0]
	ex.needUnknown = false
	for _, d := range ex.st.delayed {
		var s *sched.RWSet
		if d.rw != nil {
			s = e.Uncanon(d.rw)
			if s.UnknownR || s.UnknownW {
				ex.needUnknown = true
			}
		}
		ex.delayedRW = append(ex.delayedRW, s)
	}
	return ex.loop()
}

// loop is the top of LOOP: choose the thread that runs the next atomic block
// and remember the checkpoint (RetPt) and the state there. It returns -1
// when the enabled set is empty: the path has ended.
//
// When the enabled set is empty, virtual time advances (a tick, package scheduler/internal/vclock):
// the timers of the earliest deadline fire and wake the goroutines that wait
// for them, and the path goes on. It does so only when no thread is delayed
// either. A delayed thread could run, so time could not pass yet; and the
// path need not go on without it: no block since its branch point touched
// its reads and writes, so the sibling branch in which it ran its block
// first reaches the same state with it done, and ticks there. (Ticking here
// would explore a time-out firing while a goroutine that is not blocked has
// yet to act, which no real execution does.)
func (ex *Explorer) loop() int32 {
	if ex.st.enabled.Empty() {
		// Threads that only gave way (yield, fairness, polling alone) do
		// not stop time: they are waiting for others (see pollsAlone).
		yielders := len(ex.st.delayed) > 0 && ex.onlyYieldersDelayed()
		if len(ex.st.delayed) > 0 && !yielders {
			return -1
		}
		if !ex.eng.Tick(ex.blk.thread, &ex.st.enabled) {
			if !yielders {
				return -1
			}
			ex.reenableYielders() // nothing to wake: the pollers go on
		}
	}
	ex.tickPlan = nil
	var t int32 = -1
	if ex.dir != nil {
		var stop bool
		t, stop = ex.dir.Pick(len(ex.path), &ex.st.enabled, &ex.st.blocked)
		if stop {
			return ex.eng.Running() // the caller stops at the divergence
		}
		if ex.st.enabled.Empty() {
			return -1
		}
	}
	if ex.dir == nil && ex.pb == nil && ex.opt.Sampler == nil {
		// A branch point: the program state after len(path) decisions
		// (and the tick after the last, if time advanced), which a fork
		// checkpoint may keep (see checkpoint.Fork).
		if next, redirected := ex.eng.BranchPoint(len(ex.path)); redirected {
			return next
		}
	}
	switch {
	case t >= 0:
	case ex.plan != nil:
		t = ex.plan.thread
	default:
		t = ex.choose() // flushes first (flushorder.go)
	}
	b := &ex.blk
	if prev := b.thread; prev < 0 || prev != t && !ex.eng.IsClock(prev) && !ex.ownFlusher(prev, t) {
		// Another thread ran: whatever this one polls for may have come.
		// (Not the clock: see scheduler/internal/vclock/eager.go, "Fairness".)
		nt := ex.th(t)
		nt.polls, nt.alonePolls = pollCount{}, pollCount{}
	}
	if ex.pb != nil {
		ex.pbBlockStarted(t)
	}
	b.thread = t
	ex.eng.BlockStarted(t, len(ex.path))
	b.open = true
	b.planned = ex.plan != nil
	b.forced = ex.forcedFlush(t)
	b.retPt = len(ex.path)
	b.old.copyFrom(&ex.st)
	b.rw.Reset()
	b.choices = nil
	b.spawns = b.spawns[:0]
	b.after.reset()
	b.lastSync = 0
	b.lastObj = 0
	b.allocs0 = ex.eng.Allocs(t)
	b.solo = !b.old.enabled.HasOther(t) && len(b.old.delayed) == 0 && !ex.opt.Oracle || ex.opt.Sampler != nil
	if b.retPt > ex.deepest {
		ex.deepest = b.retPt
	}
	return b.thread
}

// Spawned: "if (thread T starts) add T to enabled set; continue running curThread".
func (ex *Explorer) Spawned(child int32) {
	ex.progressed()
	ex.st.enabled.Add(child)
	ex.EnabledMidBlock()
}

// EnabledMidBlock: a thread became enabled in the middle of the current
// block (a go statement, or a Cond.Signal that woke a waiter whose lock is
// free), where in Java only a lock exit enables one. The spawn branch
// (pushSpawnBranches) lets it run first if the rest of the block does
// something it could observe.
func (ex *Explorer) EnabledMidBlock() {
	b := &ex.blk
	if ex.opt.OracleSpawns {
		ex.pushOracle(&ex.st, &sched.Decision{Thread: b.thread, End: ex.eng.EventCount(), Choices: append([]int32(nil), b.choices...)})
	}
	b.spawns = append(b.spawns, spawnPoint{
		event:   ex.eng.EventCount(),
		st:      ex.st.clone(),
		choices: len(b.choices),
		allocs:  ex.eng.Allocs(b.thread),
	})
}

// Access: "if (curThread performs a read/write) record it in the reads/writes set".
func (ex *Explorer) Access(addr, size uintptr, write bool) {
	b := &ex.blk
	if !b.solo {
		b.rw.Add(addr, size, write)
	}
	if len(b.spawns) > 0 {
		b.after.add(addr, size, write, ex.eng.EventCount())
	}
	if ex.needUnknown {
		if ex.eng.UnknownAddr(addr) {
			if write {
				b.rw.UnknownW = true
			} else {
				b.rw.UnknownR = true
			}
		}
	}
}

// SyncAccess is an access to the data of a synchronization object (a
// channel's buffer, a WaitGroup counter, an atomic variable): recorded as
// access does, and obj is the object the block touched last (fairness).
func (ex *Explorer) SyncAccess(addr, size uintptr, write bool) {
	ex.Access(addr, size, write)
	ex.blk.lastObj = addr
}

// Observe notes a synchronization on obj a child goroutine could interfere
// with that is not recorded as an access (a lock enter or notify under
// -sync-deps=false); it makes the part of the block after a spawn relevant,
// and obj the object the block touched last (fairness).
func (ex *Explorer) Observe(obj uintptr) {
	ex.blk.lastSync = ex.eng.EventCount()
	ex.blk.lastObj = obj
}

// LockReleased: "add all threads on lock's blocked set to enabled set".
func (ex *Explorer) LockReleased(lock int32) {
	bl := ex.st.blocked[:0]
	for _, b := range ex.st.blocked {
		if b.Lock == lock {
			ex.st.enabled.Add(b.Thread)
		} else {
			bl = append(bl, b)
		}
	}
	ex.st.blocked = bl
}

// Woken: a waiting thread was woken by the current block (a notify, a
// channel partner, a WaitGroup reaching zero). relock is the lock it must
// reacquire first if that lock is held ("move T from wait set to block set
// of notify lock"), or -1.
func (ex *Explorer) Woken(t, relock int32) {
	ex.progressed()
	if relock >= 0 {
		ex.st.blocked = append(ex.st.blocked, sched.Blocked{Thread: t, Lock: relock})
		return
	}
	ex.st.enabled.Add(t)
}

// Disable removes thread t from the enabled and delayed sets: a flush
// pseudo-thread whose buffer another block drained (tso.go).
func (ex *Explorer) Disable(t int32) {
	ex.st.enabled.Remove(t)
	for i, d := range ex.st.delayed {
		if d.t == t {
			ex.st.delayed = append(ex.st.delayed[:i], ex.st.delayed[i+1:]...)
			ex.delayedRW = append(ex.delayedRW[:i], ex.delayedRW[i+1:]...)
			break
		}
	}
}

// reenableDelayed: "foreach (thread, r, w) in delayed: if ((r,w) intersects
// (reads,writes)) move thread from delayed set to enabled set". Without
// read/write pruning the delayed thread is re-enabled after any block
// ("add delayed_thread to enabled set").
func (ex *Explorer) reenableDelayed() {
	if len(ex.st.delayed) == 0 {
		return
	}
	b := &ex.blk
	keep := ex.st.delayed[:0]
	keepRW := ex.delayedRW[:0]
	for i, d := range ex.st.delayed {
		s := ex.delayedRW[i]
		// A goroutine that gave way waits for a goroutine's block, not
		// the clock's (scheduler/internal/vclock/eager.go, "Fairness").
		if d.yield && !ex.eng.IsClock(b.thread) || !d.yield && (!ex.opt.ReadWrite || intersectsBlock(s, &b.rw)) {
			ex.st.enabled.Add(d.t)
			continue
		}
		keep = append(keep, d)
		keepRW = append(keepRW, s)
	}
	ex.st.delayed, ex.delayedRW = keep, keepRW
}

func (ex *Explorer) onlyYieldersDelayed() bool {
	for _, d := range ex.st.delayed {
		if !d.yield {
			return false
		}
	}
	return true
}

func (ex *Explorer) reenableYielders() {
	for _, d := range ex.st.delayed {
		ex.st.enabled.Add(d.t)
	}
	ex.st.delayed, ex.delayedRW = ex.st.delayed[:0], ex.delayedRW[:0]
}

func intersectsBlock(d, cur *sched.RWSet) bool {
	if d.UnknownW && (cur.UnknownR || cur.UnknownW) || d.UnknownR && cur.UnknownW {
		return true
	}
	return d.Intersects(cur)
}

// Boundary is a lock exit or an operation that counts as one (a channel,
// atomic, WaitGroup or Once operation). The block ends there only if another
// thread is enabled; it returns the thread to run next.
func (ex *Explorer) Boundary() int32 {
	ex.reenableDelayed()
	cur := ex.blk.thread
	if !ex.st.enabled.HasOther(cur) {
		if ex.pollsAlone(ex.blk.thread, ex.blk.lastObj) {
			return ex.letTimePass()
		}
		return ex.blk.thread
	}
	ex.endBlock(true)
	if ex.spinning() {
		ex.giveWay(ex.blk.thread, true)
		if ex.pollTogether(ex.blk.thread) {
			ex.delayPollers()
		}
	}
	return ex.loop()
}

// Fairness. Go's scheduler preempts a goroutine that runs for long while
// others are runnable, so an execution in which one goroutine runs forever
// while another could run does not happen; a goroutine that waits for
// another by polling without yielding (for sem.TryAcquire(1) {
// sem.Release(1) }) relies on it. Depth-first exploration continues the
// current goroutine first, so without a bound such a loop has an infinite
// first path. A goroutine whose blocks keep ending at the synchronization
// objects its recent blocks ended at (a loop over the same lock, channel or
// atomic), Config.FairBlocks blocks in a row while another thread could
// run, gives way: it is delayed until another thread's block ends, and the
// explorer notes it. What is not explored: that goroutine running more such
// blocks in a row; a polling loop repeats the same thing. A goroutine that
// works through different objects (the thesis's Performance locks a
// hundred mutexes in a row) is not affected.

// spinning reports whether the block that just ended makes its thread one
// that polls: one more block ending at an object one of its last blocks
// ended at, FairBlocks in a row.
func (ex *Explorer) spinning() bool {
	t := ex.th(ex.blk.thread)
	if b := ex.opt.FairBlocks; t.polls.see(ex.blk.lastObj) >= b && b > 0 {
		t.polls.repeats = 0
		return true
	}
	return false
}

// pollCount counts the scheduling points in a row at one of the objects of
// the last few: a point at one of them is one more round of the same loop
// (a round may touch several: a lock and a channel, a receive and a load).
type pollCount struct {
	recent  [4]uintptr
	n       int // points seen
	repeats int // in a row at a recent object
}

// see counts a point at obj and returns how many in a row repeated.
func (p *pollCount) see(obj uintptr) int {
	repeat := false
	for _, o := range p.recent {
		if o == obj {
			repeat = true
			break
		}
	}
	p.recent[p.n%len(p.recent)] = obj
	p.n++
	if !repeat {
		p.repeats = 0
	} else {
		p.repeats++
	}
	return p.repeats
}

// giveWay delays t until another thread's block ends; fair: because of
// the fairness bound (the run notes it), not a second yield.
func (ex *Explorer) giveWay(t int32, fair bool) {
	ex.st.enabled.Remove(t)
	ex.st.delayed = append(ex.st.delayed, delayedThread{t: t, yield: true})
	ex.delayedRW = append(ex.delayedRW, nil)
	if fair {
		ex.eng.GaveWayFairly()
	}
}

// Yielded is runtime.Gosched: a block boundary, which also gives way.
//
// Go's Gosched lets the other goroutines run; a goroutine that waits for
// another by polling (for !ready() { runtime.Gosched() }) relies on it. If
// the yielding goroutine could always go on first, as after any boundary,
// every such loop would have an infinite path in which the others never run
// (and the exploration none of its end), which Go's scheduler never
// produces. So a goroutine that yields while another thread could run is
// explored going on (as after any boundary) only if it did not yield before
// without another thread running a block since; otherwise it gives way:
// it is delayed until another thread's block ends (CHESS's fair yield,
// Musuvathi and Qadeer, PLDI 2008, with one unfair step allowed). What is
// not explored: a goroutine that yields twice in a row, both times going on
// while others wait; a polling loop does the same thing in each round.
func (ex *Explorer) Yielded() int32 {
	ex.reenableDelayed()
	t := ex.blk.thread
	if !ex.st.enabled.HasOther(t) {
		if ex.pollsAlone(t, yieldObj) {
			return ex.letTimePass()
		}
		return t
	}
	yieldAt := ex.th(t).yieldAt
	again := yieldAt >= 0 && !ex.othersRanSince(t, yieldAt)
	ex.endBlock(true)
	ex.pbYielded()
	ex.th(t).yieldAt = len(ex.path)
	if fair := ex.spinning(); again || fair {
		ex.giveWay(t, fair && !again)
		if ex.pollTogether(t) {
			ex.delayPollers()
		}
	}
	return ex.loop()
}

// Polling alone. Virtual time advances only when no goroutine can run
// (package scheduler/internal/vclock), so a goroutine that polls while every other one sleeps or
// waits for a timer (for atomic.LoadInt32(&stop) == 0 { runtime.Gosched() },
// a select on a closed channel in a loop) would spin until -max-steps, where
// in Go time passes meanwhile and the sleepers wake. A goroutine that
// reaches FairBlocks boundaries in a row alone (nothing else enabled or
// delayed), at the same object or yielding, while a timer can fire, ends its
// block and gives way: time advances to the next deadline and whoever that
// wakes runs first; the poller goes on after them. The polls before that,
// with no time passing, are explored as before.

// yieldObj is the object of a runtime.Gosched for pollsAlone.
const yieldObj = ^uintptr(0)

// pollsAlone counts t's boundary at obj with nothing else enabled and
// reports whether it should now let time pass.
func (ex *Explorer) pollsAlone(t int32, obj uintptr) bool {
	if ex.opt.FairBlocks <= 0 || len(ex.st.delayed) > 0 {
		return false
	}
	ts := ex.th(t)
	if ts.alonePolls.see(obj) < ex.opt.FairBlocks {
		return false
	}
	if !ex.eng.TimerPending() {
		return false
	}
	ts.alonePolls.repeats = 0
	return true
}

// Polling together. Goroutines that poll each other and a channel a timer
// will close (two loops on select { case <-done: return; default: }, with
// time.AfterFunc(time.Second, func() { close(done) }): jackc/puddle's
// stress tests) are never alone, so they give way to each other for ever
// while in Go time passes and the timer ends them. Once every goroutine that
// can run has given way twice under the fairness bound (or by yielding
// twice) with nothing else happening (no park, exit, spawn, wake-up or
// tick), and a timer can fire, they all give way: time advances, whoever it
// wakes runs first, and the pollers go on after them.

// pollTogether counts t's give-way and reports whether every goroutine
// that can run now polls.
func (ex *Explorer) pollTogether(t int32) bool {
	if ex.opt.FairBlocks <= 0 {
		return false
	}
	ts := ex.th(t)
	if ts.gaveWayAt != ex.events {
		ts.gaveWay, ts.gaveWayAt = 0, ex.events
	}
	ts.gaveWay++
	polls := func(u int32) bool {
		us := ex.th(u)
		return us.gaveWayAt == ex.events && us.gaveWay >= 2
	}
	all := true
	ex.st.enabled.Each(func(u int32) {
		if ex.eng.IsClock(u) || !polls(u) {
			all = false
		}
	})
	for _, d := range ex.st.delayed {
		if !d.yield || !polls(d.t) {
			all = false
		}
	}
	return all && ex.eng.TimerPending()
}

// delayPollers gives way for every goroutine that can run, so that loop
// ticks (it re-enables them if the tick wakes nobody).
func (ex *Explorer) delayPollers() {
	var ts []int32
	ex.st.enabled.Each(func(u int32) { ts = append(ts, u) })
	for _, u := range ts {
		ex.giveWay(u, false)
	}
	ex.progressed()
}

// progressed makes the give-ways counted for pollTogether stale: something
// other than polling happened. (A count, not a pass over the threads: it
// runs at every park, exit, spawn and wake-up.)
func (ex *Explorer) progressed() { ex.events++ }

// letTimePass ends the block of a goroutine that polls alone and delays it
// (as a yield does) so that loop ticks.
func (ex *Explorer) letTimePass() int32 {
	t := ex.blk.thread
	ex.endBlock(true)
	ex.giveWay(t, true)
	return ex.loop()
}

// othersRanSince reports whether a thread other than t ran a block of the
// path from depth from on.
func (ex *Explorer) othersRanSince(t int32, from int) bool {
	for _, d := range ex.path[min(from, len(ex.path)):] {
		if d.Thread != t && !ex.ownFlusher(d.Thread, t) {
			return true
		}
	}
	return false
}

// Park: "if (curThread does a wait()) move curThread from enabled set to wait
// set; count as lock_exit". Blocking channel operations, WaitGroup.Wait and
// a writer waiting for readers to leave an RWMutex park the same way.
func (ex *Explorer) Park() int32 {
	ex.progressed()
	ex.st.enabled.Remove(ex.blk.thread)
	ex.reenableDelayed()
	ex.endBlock(true)
	return ex.loop()
}

// Exit: "if (curThread dies) remove curThread from both enabled and
// old_enabled; goto LOOP". A death pushes no branch of its own. Delayed
// threads whose sets the final block touched are re-enabled: under the
// locking discipline a final block touches no shared data, so this changes
// nothing for the programs the thesis considers, and it keeps a program that
// breaks the discipline from hiding an order.
func (ex *Explorer) Exit() int32 {
	ex.progressed()
	ex.st.enabled.Remove(ex.blk.thread)
	ex.reenableDelayed()
	ex.endBlock(false)
	return ex.loop()
}

// endBlock pushes the branches of the block that just ended and appends it
// to the path:
//
//	save_enabled = old_enabled minus curThread
//	save_delayed = delayed plus (curThread, reads, writes)
//	push on stack (RetPt, save_enabled, save_delayed, wait, {})
func (ex *Explorer) endBlock(lockExit bool) {
	b := &ex.blk
	cur := b.thread
	// A block re-executed for another notify or select choice has had its
	// "others first" branch pushed by its first execution. Without read/write
	// sets that branch would be the same again, so it is not pushed twice;
	// under ExitBlock-RW it differs (the delayed entry carries this
	// execution's reads and writes, which the other choice may not have
	// touched) and is needed.
	others := lockExit && !(b.planned && !ex.opt.ReadWrite) && !b.forced
	retick := ex.plan != nil && ex.plan.tick
	if retick || ex.opt.Sampler != nil {
		others = false
	}
	if ex.opt.Oracle {
		if others {
			ex.pushOracle(&b.old, nil)
		}
	} else if others && b.old.enabled.HasOther(cur) {
		br := branch{depth: b.retPt, st: ebState{
			enabled: b.old.enabled.Clone(),
			delayed: ex.saveDelayed(b.old.delayed, &b.rw, cur, b.allocs0),
			blocked: append([]sched.Blocked(nil), b.old.blocked...),
		}}
		br.st.enabled.Remove(cur)
		ex.push(br)
	}
	if !retick {
		ex.pushSpawnBranches()
	}
	var ch []int32
	if len(b.choices) > 0 {
		ch = append(ch, b.choices...)
	}
	ex.path = append(ex.path, sched.Decision{Thread: cur, End: ex.eng.EventCount(), Choices: ch})
	if ex.pb != nil {
		ex.pbBlockEnded(cur)
	}
	ex.tickPlan = nil
	if retick {
		ex.tickPlan = ex.plan
	}
	ex.plan = nil
	b.open = false
}

// saveDelayed returns delayed plus (cur, rw), with rw in execution-independent
// form. Objects cur registered after it had made `allocs` registrations are
// its own (made after the branch point) and cannot be shared yet.
func (ex *Explorer) saveDelayed(delayed []delayedThread, rw *sched.RWSet, cur, allocs int32) []delayedThread {
	out := make([]delayedThread, 0, len(delayed)+1)
	out = append(out, delayed...)
	var c *sched.CanonRW
	if ex.opt.ReadWrite {
		c = ex.eng.Canon(rw, cur, allocs)
	}
	return append(out, delayedThread{t: cur, rw: c})
}

// pushSpawnBranches pushes, for each `go` statement of the block after which
// the block did something the child could observe, a branch that stops the
// parent right after the statement.
func (ex *Explorer) pushSpawnBranches() {
	if ex.opt.Oracle || ex.opt.NoSpawnBranches || ex.opt.Sampler != nil {
		return
	}
	b := &ex.blk
	cur := b.thread
	for i := range b.spawns {
		sp := &b.spawns[i]
		if b.after.last <= sp.event && b.lastSync <= sp.event {
			continue
		}
		rest := b.after.since(sp.event)
		if b.rw.UnknownR || b.rw.UnknownW {
			rest.UnknownR, rest.UnknownW = b.rw.UnknownR, b.rw.UnknownW
		}
		st := sp.st
		st.enabled.Remove(cur)
		st.delayed = ex.saveDelayed(st.delayed, rest, cur, sp.allocs)
		if st.enabled.Empty() {
			continue
		}
		extra := &sched.Decision{Thread: cur, End: sp.event, Choices: append([]int32(nil), b.choices[:sp.choices]...)}
		ex.push(branch{depth: b.retPt, extra: extra, st: st})
	}
}

// pushOracle pushes, for every thread of st other than the current one, a
// branch that runs it first from the block's start (or from extra).
func (ex *Explorer) pushOracle(st *ebState, extra *sched.Decision) {
	cur := ex.blk.thread
	st.enabled.Each(func(u int32) {
		if u != cur {
			ex.push(branch{depth: ex.blk.retPt, extra: extra, st: ebState{enabled: st.enabled.Clone(), blocked: append([]sched.Blocked(nil), st.blocked...)}, plan: &blockPlan{thread: u}})
		}
	})
}

func (ex *Explorer) push(b branch) {
	ex.pushed++
	if ex.pb != nil {
		ex.pbPush(b)
		return
	}
	ex.stack = append(ex.stack, b)
}

// Choose picks one of options at a notify or select choice point of the
// current block (Fig 2.9): "select a thread T not in no_notify to wake up;
// if (there are still threads waiting) push on stack (RetPt, enabled,
// delayed_thread, wait, no_notify+T)".
func (ex *Explorer) Choose(options []int32) (int32, bool) {
	b := &ex.blk
	i := len(b.choices)
	var pick int32 = -1
	if s := ex.opt.Sampler; s != nil {
		pick = s.Option(options)
		b.choices = append(b.choices, pick)
		return pick, true
	}
	if p := ex.plan; p != nil && i < len(p.fixed) {
		pick = p.fixed[i]
		if !contains(options, pick) {
			return 0, false // the re-executed block diverged
		}
	} else {
		var exclude []int32
		if p != nil && i == len(p.fixed) {
			exclude = p.exclude
		}
		more := false
		for _, o := range options {
			if contains(exclude, o) {
				continue
			}
			if pick < 0 {
				pick = o
			} else {
				more = true
			}
		}
		if pick < 0 {
			return 0, false
		}
		if more {
			ex.push(branch{depth: b.retPt, st: b.old.clone(), plan: &blockPlan{
				thread:  b.thread,
				fixed:   append([]int32(nil), b.choices...),
				exclude: append(append([]int32(nil), exclude...), pick),
			}})
		}
	}
	b.choices = append(b.choices, pick)
	return pick, true
}

// ChooseTick picks the timer that fires first among equal deadlines at a
// tick (or -1, see vclock's fireDue). The choices are recorded after the last
// block's; a branch re-executes that block with a tick plan (the same
// choices inside it, another one here). A tick that opens an execution (it
// resumes from a failed lock acquisition with nothing enabled) has no block
// of this execution before it: its branch resumes at the same point with a
// plan for the tick alone (thread -1).
func (ex *Explorer) ChooseTick(options []int32) int32 {
	b := &ex.blk
	d := &ex.path[len(ex.path)-1]
	if b.thread < 0 {
		return ex.pickTick(options, d, len(ex.path), &ex.start.st, -1)
	}
	return ex.pickTick(options, d, b.retPt, &b.old, b.thread)
}

func (ex *Explorer) pickTick(options []int32, d *sched.Decision, depth int, st *ebState, thread int32) int32 {
	i := len(d.Choices)
	var pick int32 // options include -1 (see fireDue, package scheduler/internal/vclock)
	if s := ex.opt.Sampler; s != nil {
		pick = s.Option(options)
		d.Choices = append(d.Choices, pick)
		return pick
	}
	if p := ex.tickPlan; p != nil && i < len(p.fixed) {
		pick = p.fixed[i]
		if !contains(options, pick) {
			ex.eng.Diverge("a re-executed tick offered other timers")
		}
	} else {
		var exclude []int32
		if p != nil && i == len(p.fixed) {
			exclude = p.exclude
		}
		found, more := false, false
		for _, o := range options {
			if contains(exclude, o) {
				continue
			}
			if !found {
				pick, found = o, true
			} else {
				more = true
			}
		}
		if !found {
			ex.eng.Diverge("a re-executed tick offered no other timer")
		}
		if more {
			ex.push(branch{depth: depth, st: st.clone(), plan: &blockPlan{
				thread:  thread,
				fixed:   append([]int32(nil), d.Choices...),
				exclude: append(append([]int32(nil), exclude...), pick),
				tick:    true,
			}})
		}
	}
	d.Choices = append(d.Choices, pick)
	return pick
}

// Retick is called at the end of a replayed prefix whose last decision
// records more choices than its block took (n): if the next execution
// resumes with a tick of its own (a failed lock acquisition left nothing
// enabled), the rest were taken at a tick that opened an earlier execution,
// which this one takes again (ChooseTick); they are dropped. It returns the
// decision it cut, or nil.
func (ex *Explorer) Retick(n int) *sched.Decision {
	if !ex.start.st.enabled.Empty() || ex.start.extra != nil {
		return nil
	}
	d := &ex.path[ex.start.depth-1]
	d.Choices = append([]int32(nil), d.Choices[:n]...)
	return d
}

// Chosen records choice c of the current block that the engine took (a
// guided execution's recorded notify or select choice) instead of Choose.
func (ex *Explorer) Chosen(c int32) { ex.blk.choices = append(ex.blk.choices, c) }

// TickChosen records choice c that the engine took at a tick (a guided
// execution's recorded order of timers) instead of ChooseTick.
func (ex *Explorer) TickChosen(c int32) {
	d := &ex.path[len(ex.path)-1]
	d.Choices = append(d.Choices, c)
}

// Ticked: virtual time advances after the last block of the path (vclock),
// which then cannot merge with the next one (the driver's mergePath).
func (ex *Explorer) Ticked() {
	ex.progressed()
	if n := len(ex.path); n > 0 {
		ex.path[n-1].Tick = true
	}
}

// StartThread returns the thread the next execution resumes with, for a
// replayed prefix to tick up to (see vclock's CatchUp): the plan's, the first
// enabled, or the one whose lock acquisition failed; -1 if none.
func (ex *Explorer) StartThread() int32 {
	st := &ex.start.st
	switch {
	case ex.start.plan != nil && ex.start.plan.thread >= 0:
		return ex.start.plan.thread
	case !st.enabled.Empty():
		return st.enabled.First()
	case len(st.blocked) > 0:
		return st.blocked[len(st.blocked)-1].Thread
	}
	return -1
}

func contains(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// LockFailed: "if (lock_enter && another thread holds that lock) move
// curThread from enabled to lock's block set; change execution state back to
// RetPt; goto LOOP". The execution ends; the next one replays the path to
// RetPt and continues from the old state with the thread blocked.
func (ex *Explorer) LockFailed(lock int32, pc uintptr) {
	b := &ex.blk
	if ex.opt.Oracle && b.planned {
		// The oracle's child "this thread first" is infeasible; its
		// siblings are on the stack already.
		ex.abandoned = true
		return
	}
	st := b.old.clone()
	st.enabled.Remove(b.thread)
	st.blocked = append(st.blocked, sched.Blocked{Thread: b.thread, Lock: lock, PC: pc})
	if ex.dir != nil {
		ex.dir.BlockedAt(b.retPt, sched.Blocked{Thread: b.thread, Lock: lock, PC: pc})
	} else if st.enabled.Empty() && len(st.delayed) > 0 {
		// No thread can run first: the others are delayed or blocked (at
		// access granularity a delayed thread may hold the lock). The path
		// would end at once, running nothing that the order already
		// explored (the delayed threads first) does not; skip it.
		ex.abandoned = true
		return
	}
	ex.start = branch{depth: b.retPt, st: st}
	if ex.pb != nil {
		ex.start.pb.info = ex.pb.info[b.retPt]
	}
}

// Freeze stops the current thread for good (it exceeded the step bound, the
// thesis's terminateAfter): "if (curThread ... reaches execution limit)
// remove curThread from both enabled and old_enabled; goto LOOP".
func (ex *Explorer) Freeze() int32 {
	ex.st.enabled.Remove(ex.blk.thread)
	ex.endBlock(false)
	return ex.loop()
}

// Next is the end of an iteration of Fig 2.7's loop, after an execution:
// unless the execution ended at a failed lock enter (aborted: LockFailed
// set the start to its RetPt), the next start is popped. It reports false
// when the exploration is over ("goto DONE").
func (ex *Explorer) Next(aborted bool) bool {
	if ex.pb != nil {
		ex.pbExecutionEnded()
	}
	if ex.opt.Sampler != nil {
		return ex.nextSample(aborted)
	}
	if (!aborted || ex.abandoned) && !ex.nextStart() {
		return false
	}
	ex.abandoned = false
	return true
}

// StartDepth is the depth of the next start: the decisions of the current
// path its execution replays (a fork checkpoint's branch point).
func (ex *Explorer) StartDepth() int { return ex.start.depth }

// Pending is the number of branches left on the stack.
func (ex *Explorer) Pending() int {
	if ex.pb != nil {
		return len(ex.stack) + ex.pb.waiting
	}
	return len(ex.stack)
}

// MaxDepth is the deepest RetPt (path depth of a block start) explored.
func (ex *Explorer) MaxDepth() int { return ex.deepest }

// Forked: this process is a new child (fork checkpoints); what it saves is
// relative to the stack it has now.
func (ex *Explorer) Forked() {
	ex.low = len(ex.stack)
	if ex.pb != nil {
		ex.pbForked()
	}
}

// Depth is the number of blocks of the path so far: the index of the block
// under way.
func (ex *Explorer) Depth() int { return len(ex.path) }

// CurrentPath is the path of the execution under way (its blocks so far).
func (ex *Explorer) CurrentPath() []sched.Decision { return ex.path }

// Blocked is the block sets of the locks: the threads known to wait for a
// lock another holds (reports, ExitBlock-DD's deadlock check).
func (ex *Explorer) Blocked() []sched.Blocked { return ex.st.blocked }

// DelayedCount is the size of the delayed set.
func (ex *Explorer) DelayedCount() int { return len(ex.st.delayed) }

// OthersCanRun reports whether a thread other than t is enabled or delayed.
func (ex *Explorer) OthersCanRun(t int32) bool {
	return ex.st.enabled.HasOther(t) || len(ex.st.delayed) > 0
}

// Preempt ends the current block here whatever the enabled set: a guided
// execution's schedule ends a block at a boundary (or, lockExit false, at a
// go statement or a wake-up that is not one) where the current thread could
// go on.
func (ex *Explorer) Preempt(lockExit bool) int32 {
	ex.reenableDelayed()
	ex.endBlock(lockExit)
	return ex.loop()
}

// Sampling (Options.Sampler): one path per sample, each from the start of
// the test body, the sampler taking every choice a tree walk would branch
// at: the thread of each block (loop, choose), notify and select choices
// (Choose), orders of equal timer deadlines (ChooseTick). Nothing is
// pushed; a failed lock acquisition still restarts the execution at the
// block's start with the thread blocked (LockFailed), as in the tree. A
// forced store-buffer flush still runs first (flushorder.go: no other
// order reaches anything new). Not sampled: the points in the middle of a
// block where a tree walk's spawn branch stops a parent right after its go
// statement (a sample switches only at block boundaries).

// nextSample is Next under sampling: a retry of the same sample after a
// failed lock acquisition, else the next sample from the start.
func (ex *Explorer) nextSample(aborted bool) bool {
	if aborted && !ex.abandoned {
		return true
	}
	ex.abandoned = false
	ex.path = ex.path[:0]
	ex.start = branch{}
	ex.start.st.enabled.Add(0)
	if !ex.opt.Sampler.StartSample() {
		ex.done = true
		return false
	}
	return true
}

// BranchDepth is the depth (RetPt) of the i-th branch on the stack, bottom
// first: the node of the tree the branch is another child of. A branch of
// a spawn has its parent's partial block besides (its first decision), at
// the same node. Package shard splits the tree by these nodes.
func (ex *Explorer) BranchDepth(i int) int { return ex.stack[i].depth }

// nextStart pops the next branch: "pop (RetPt, saved_enabled, saved_delayed,
// wait, no_notify) off of stack; change execution state back to RetPt". It
// reports false when the stack is empty: "goto DONE".
func (ex *Explorer) nextStart() bool {
	n := len(ex.stack)
	if n == 0 && ex.pb != nil && ex.pbNextLevel() {
		n = len(ex.stack)
		ex.low = 0
	}
	if n == 0 {
		ex.done = true
		return false
	}
	ex.start = ex.stack[n-1]
	ex.stack[n-1] = branch{}
	ex.stack = ex.stack[:n-1]
	ex.low = min(ex.low, n-1)
	if ex.pb != nil {
		ex.pbStart()
	}
	return true
}

// PathPrefix returns a copy of the path so far plus the current block up to
// now, which replays the execution to the current event.
func (ex *Explorer) PathPrefix() []sched.Decision {
	p := append([]sched.Decision(nil), ex.path...)
	if b := &ex.blk; b.open {
		p = append(p, sched.Decision{Thread: b.thread, End: ex.eng.EventCount(), Choices: append([]int32(nil), b.choices...), Mid: true})
	}
	return p
}

// NewExecution: the threads of the new execution start with no polls and
// no yield (see threadState).
func (ex *Explorer) NewExecution() { ex.thr = ex.thr[:0] }

// th returns thread i's state, growing the table as threads appear.
func (ex *Explorer) th(i int32) *threadState {
	for int(i) >= len(ex.thr) {
		ex.thr = append(ex.thr, threadState{yieldAt: -1})
	}
	return &ex.thr[i]
}
