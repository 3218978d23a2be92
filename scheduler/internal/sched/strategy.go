package sched

// Strategy is an exploration strategy as the engine and the driver see it.
// The thesis writes ExitBlock as one loop (Fig 2.7) that runs the current
// thread "until one of the following events occurs"; here the controlled
// goroutines run the program and report those events, so a strategy is the
// loop cut into its event handlers. The ExitBlock family (package
// exitblock) is the one implementation; another (random, PCT, DPOR) would
// implement the same methods. Each method names the thesis figure its event
// comes from: Fig 2.7 is ExitBlock, Fig 2.9 its wait/notify part, Fig 2.12
// ExitBlock-RW; section 2.5 (ExitBlock-DD) adds no event, only a check at a
// path's end (the engine's, scheduler/internal/engine/deadlock.go).
//
// Threads are named by creation index. Methods that return an int32 name
// the thread that runs next (the current one if its block goes on), or -1
// when the path has ended ("if (enabled is empty)").
//
// The event methods are called on the running goroutine, inline, at every
// hook that reaches them: Access is called at every shared access and must
// not allocate beyond the growth of its sets.
type Strategy interface {
	// Across executions (the driver, scheduler/internal/driver/explore.go; the thesis's
	// stack).

	// ReplayPrefix returns the decisions the next execution replays
	// before the strategy steers it: "change execution state back to
	// RetPt" (Fig 2.7) by re-execution.
	ReplayPrefix() []Decision
	// StartDepth is the number of whole blocks of the current path that
	// prefix replays: the branch point a fork checkpoint resumes at.
	StartDepth() int
	// Next moves to the next start after an execution; aborted: it ended
	// at a failed lock enter, whose RetPt LockFailed made the start. It
	// reports false when nothing is left: "pop ... off of stack", or
	// "goto DONE" (Fig 2.7).
	Next(aborted bool) bool
	// Pending is the number of branches left (a bounded result's Left).
	Pending() int
	// MaxDepth is the deepest block start explored (Result.Depth).
	MaxDepth() int
	// Forked: this process is a new child of a fork checkpoint; Save
	// hands back what changed from now on.
	Forked()
	// Save encodes what this process changed since it was forked (over:
	// the exploration is over, what is left does not matter); Load
	// decodes a child's save and returns what applies it, to this
	// strategy or, fresh, to a new one (the child started over).
	Save(e *Enc, over bool)
	Load(x *Dec) (apply func(fresh bool) Strategy, err error)

	// Within an execution (the engine, scheduler/internal/engine/run.go and the hooks).

	// NewExecution: an execution starts from the beginning of the test
	// body. Its threads are new: whatever the strategy keeps per thread
	// starts over. Begin follows once the prefix is replayed (again, in
	// the same execution, if a fork checkpoint redirects it to another
	// start).
	NewExecution()
	// Begin is called when the execution has replayed its prefix: the
	// strategy restores its sets at RetPt and returns the thread that
	// runs first ("curThread = choose a member of enabled", Fig 2.7).
	Begin(e Engine) int32
	// StartThread is the thread the next execution resumes with (-1:
	// none), for a replayed prefix to advance virtual time up to.
	StartThread() int32
	// Retick: the replayed prefix's last block took n of its recorded
	// choices; the rest may belong to a tick this execution takes again
	// (ChooseTick). It returns the decision it cut, or nil.
	Retick(n int) *Decision
	// Depth is the number of blocks of the path so far.
	Depth() int

	// Spawned: "if (thread T starts) add T to enabled set; continue
	// running curThread" (Fig 2.7). In Go the parent's block goes on past
	// a point the child may observe (exitblock, "Spawn branches").
	Spawned(child int32)
	// EnabledMidBlock: a thread became enabled in the middle of the
	// current block where Java could not enable one (a Cond.Signal
	// without the lock): like a spawn, it may run first.
	EnabledMidBlock()
	// Access: "if (curThread performs a read/write) record it in the
	// reads/writes set" (Fig 2.12). Called at every shared access: it
	// must not allocate beyond the set's growth.
	Access(addr, size uintptr, write bool)
	// SyncAccess is Access to a synchronization object's own data (a
	// channel buffer, a counter), which is also the object the block
	// touched last.
	SyncAccess(addr, size uintptr, write bool)
	// Observe: a synchronization on obj not recorded as an access (a lock
	// enter), which a goroutine spawned earlier in the block could see.
	Observe(obj uintptr)
	// LockReleased: "if (lock_exit) add all threads on lock's blocked
	// set to enabled set" (Fig 2.7); Boundary follows.
	LockReleased(lock int32)
	// Woken: "move T from wait set to block set of notify lock" (Fig 2.9)
	// when relock >= 0 is held, else t is enabled (a channel partner, a
	// WaitGroup reaching zero, a timer).
	Woken(t, relock int32)
	// Disable removes t from the enabled and delayed sets (a flush
	// pseudo-thread whose buffer another block drained, scheduler/internal/storebuf).
	Disable(t int32)
	// LockFailed: "if (lock_enter && another thread holds that lock) move
	// curThread from enabled to lock's block set; change execution state
	// back to RetPt; goto LOOP" (Fig 2.7). The execution then ends.
	LockFailed(lock int32, pc uintptr)

	// Boundary: a lock exit or an operation that counts as one; "if
	// (lock_exit)" ends the block when another thread is enabled
	// (Fig 2.7; 2.12 re-enables the delayed threads it touched).
	Boundary() int32
	// Yielded: runtime.Gosched, a boundary that gives way (exitblock,
	// "Fairness").
	Yielded() int32
	// Park: "if (curThread does a wait()) move curThread from enabled
	// set to wait set; count as lock_exit" (Fig 2.9).
	Park() int32
	// Exit: "if (curThread dies) remove curThread from both enabled and
	// old_enabled; goto LOOP" (Fig 2.7).
	Exit() int32
	// Freeze: the step bound stopped the current thread for good (the
	// thesis's terminateAfter, 3.3.1), as Exit.
	Freeze() int32
	// Preempt ends the block here whatever the enabled set: a guided
	// schedule's recorded block end (lockExit: at a boundary, not at a go
	// statement or mid-block wake-up).
	Preempt(lockExit bool) int32

	// Choose picks one of options at a notify or select choice point:
	// "select a thread T not in no_notify to wake up; if (there are
	// still threads waiting) push on stack (RetPt, ..., no_notify+T)"
	// (Fig 2.9). ok false: a re-executed block offered other options.
	Choose(options []int32) (c int32, ok bool)
	// Chosen records a choice the engine took itself (a guided one).
	Chosen(c int32)
	// ChooseTick picks which timer fires first among equal deadlines at
	// a tick, a choice point recorded with the block before it
	// (package scheduler/internal/vclock).
	ChooseTick(options []int32) int32
	// TickChosen records a tick's choice the engine took itself.
	TickChosen(c int32)
	// Ticked: virtual time advanced after the last block of the path.
	Ticked()

	// What reports and ExitBlock-DD's checks (2.5) need of the sets.

	// PathPrefix is a copy of the path plus the current block so far: it
	// replays the execution to the current event (a finding's schedule).
	PathPrefix() []Decision
	// CurrentPath is the path so far (not a copy).
	CurrentPath() []Decision
	// Blocked is the lock block sets: threads waiting for a held lock.
	Blocked() []Blocked
	// DelayedCount is the size of the delayed set (Fig 2.12).
	DelayedCount() int
	// OthersCanRun reports whether a thread other than t is enabled or
	// delayed.
	OthersCanRun(t int32) bool
}

// Engine is what a strategy needs of the execution under way; the
// scheduler's engine implements it (an adapter of its run, engine.go). It is the other half of Strategy: a
// strategy sees the program only as numbered events, threads named by
// creation index, virtual time, and the heap's execution-independent names
// for the addresses in its read/write sets.
type Engine interface {
	// EventCount is the number of events so far: blocks end at event
	// numbers (Decision.End), which a replay stops at.
	EventCount() int64
	// Running is the thread whose hook called the strategy.
	Running() int32
	// BlockStarted: thread t runs the block that starts at path depth
	// (the engine's fairness toward eager timers counts the blocks a
	// runnable goroutine waits, scheduler/internal/vclock/eager.go). A strategy calls it
	// at every block start.
	BlockStarted(t int32, depth int)
	// Allocs is the number of heap objects thread t has registered so far:
	// those it registers from now on are named by the HeapKeys
	// {t, Allocs(t)}, {t, Allocs(t)+1}, ...
	Allocs(t int32) int32
	// IsClock reports whether t is the virtual clock's pseudo-thread
	// (eager timers, scheduler/internal/vclock/eager.go), which does not count as another
	// goroutine running.
	IsClock(t int32) bool
	// Tick advances virtual time, firing the timers due, until enabled
	// has a member (package scheduler/internal/vclock); t is the thread whose code runs
	// it (-1: none). It reports false when no timer could fire.
	Tick(t int32, enabled *TSet) bool
	// TimerPending reports whether a timer is pending, so time can pass.
	TimerPending() bool
	// BranchPoint offers a fork checkpoint the program state after depth
	// decisions. redirected: this process is a new child of that
	// snapshot and has moved on to the next start (Begin has been called
	// again); next is the thread that runs then (-1 if the path ended).
	BranchPoint(depth int) (next int32, redirected bool)
	// Diverge ends the execution: a re-executed part of the path did not
	// offer what it offered before (the test is not deterministic).
	Diverge(why string)
	// GaveWayFairly notes that the fairness bound made a thread give way
	// (a note of the result).
	GaveWayFairly()
	// Canon returns rw with execution-independent names; the objects
	// thread registered after its first allocs registrations are its own
	// and are left out. Uncanon translates back into this execution's
	// addresses. UnknownAddr reports whether addr is memory with no such
	// name (RegionUnknown).
	Canon(rw *RWSet, thread, allocs int32) *CanonRW
	Uncanon(c *CanonRW) *RWSet
	UnknownAddr(addr uintptr) bool
	// Flusher reports whether t is a store buffer's flush pseudo-thread
	// (scheduler/internal/storebuf), and then its owner (else -1) and whether its
	// next commit is forced: it must run as soon as it is enabled, and
	// no order in which another block runs first is explored
	// (scheduler/internal/storebuf says when that loses nothing).
	Flusher(t int32) (owner int32, forced bool)
}

// Director steers a guided execution (xbtest -replay, the minimisation of
// a finding's schedule) through a strategy's choice of threads: it names
// the thread of each block while its schedule lasts. It is the engine's
// Guide (package scheduler/internal/guide); the strategy only asks it.
type Director interface {
	// Pick names the thread of the block that starts at path depth
	// (-1: the strategy chooses), after applying to the enabled set and
	// the lock block sets what earlier attempts learnt (threads blocked
	// on locks there); stop: the schedule diverged and the execution
	// ends.
	Pick(depth int, enabled *TSet, blocked *[]Blocked) (t int32, stop bool)
	// BlockedAt notes that at path depth, b found its lock held
	// (LockFailed): the next attempt knows it from the start.
	BlockedAt(depth int, b Blocked)
}
