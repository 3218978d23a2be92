package scheduler

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// strategy is an exploration strategy as the engine and the driver see it.
// The thesis writes ExitBlock as one loop (Fig 2.7) that runs the current
// thread "until one of the following events occurs"; here the controlled
// goroutines run the program and report those events, so a strategy is the
// loop cut into its event handlers. The ExitBlock family (exitblock.go) is
// the one implementation; another (random, PCT, DPOR) would implement the
// same methods. Each method names the thesis figure its event comes from:
// Fig 2.7 is ExitBlock, Fig 2.9 its wait/notify part, Fig 2.12 ExitBlock-RW;
// section 2.5 (ExitBlock-DD) adds no event, only a check at a path's end
// (the engine's, deadlock.go).
//
// Methods that return a *thread name the thread that runs next (the current
// one if its block goes on) or nil when the path has ended ("if (enabled is
// empty)").
type strategy interface {
	// Across executions (the driver, explore.go; the thesis's stack).

	// replayPrefix returns the decisions the next execution replays
	// before the strategy steers it: "change execution state back to
	// RetPt" (Fig 2.7) by re-execution.
	replayPrefix() []decision
	// startDepth is the number of whole blocks of the current path that
	// prefix replays: the branch point a fork checkpoint resumes at.
	startDepth() int
	// next moves to the next start after an execution; aborted: it ended
	// at a failed lock enter, whose RetPt lockFailed made the start. It
	// reports false when nothing is left: "pop ... off of stack", or
	// "goto DONE" (Fig 2.7).
	next(aborted bool) bool
	// pending is the number of branches left (a bounded result's Left).
	pending() int
	// maxDepth is the deepest block start explored (Result.Depth).
	maxDepth() int
	// forked: this process is a new child of a fork checkpoint; save
	// hands back what changed from now on.
	forked()
	// save encodes what this process changed since it was forked (over:
	// the exploration is over, what is left does not matter); load
	// decodes a child's save and returns what applies it, to this
	// strategy or, fresh, to a new one (the child started over).
	save(e *sched.Enc, over bool)
	load(x *sched.Dec) (apply func(fresh bool) strategy, err error)

	// Within an execution (the engine, run.go and the hooks).

	// begin is called when the execution has replayed its prefix: the
	// strategy restores its sets at RetPt and returns the thread that
	// runs first ("curThread = choose a member of enabled", Fig 2.7).
	begin(e engine) *thread
	// startThread is the thread the next execution resumes with (-1:
	// none), for a replayed prefix to advance virtual time up to.
	startThread() int32
	// retick: the replayed prefix's last block took n of its recorded
	// choices; the rest may belong to a tick this execution takes again
	// (chooseTick). It returns the decision it cut, or nil.
	retick(n int) *decision
	// depth is the number of blocks of the path so far.
	depth() int

	// spawned: "if (thread T starts) add T to enabled set; continue
	// running curThread" (Fig 2.7). In Go the parent's block goes on past
	// a point the child may observe (exitblock.go, "Spawn branches").
	spawned(child *thread)
	// enabledMidBlock: a thread became enabled in the middle of the
	// current block where Java could not enable one (a Cond.Signal
	// without the lock): like a spawn, it may run first.
	enabledMidBlock()
	// access: "if (curThread performs a read/write) record it in the
	// reads/writes set" (Fig 2.12). Called at every shared access: it
	// must not allocate beyond the set's growth.
	access(addr, size uintptr, write bool)
	// syncAccess is access to a synchronization object's own data (a
	// channel buffer, a counter), which is also the object the block
	// touched last.
	syncAccess(addr, size uintptr, write bool)
	// observe: a synchronization on obj not recorded as an access (a lock
	// enter), which a goroutine spawned earlier in the block could see.
	observe(obj uintptr)
	// lockReleased: "if (lock_exit) add all threads on lock's blocked
	// set to enabled set" (Fig 2.7); boundary follows.
	lockReleased(lock int32)
	// woken: "move T from wait set to block set of notify lock" (Fig 2.9)
	// when relock >= 0 is held, else T is enabled (a channel partner, a
	// WaitGroup reaching zero, a timer).
	woken(t *thread, relock int32)
	// disable removes t from the enabled and delayed sets (a flush
	// pseudo-thread whose buffer another block drained, tso.go).
	disable(t int32)
	// lockFailed: "if (lock_enter && another thread holds that lock) move
	// curThread from enabled to lock's block set; change execution state
	// back to RetPt; goto LOOP" (Fig 2.7). The execution then ends.
	lockFailed(lock int32, pc uintptr)

	// boundary: a lock exit or an operation that counts as one; "if
	// (lock_exit)" ends the block when another thread is enabled
	// (Fig 2.7; 2.12 re-enables the delayed threads it touched).
	boundary() *thread
	// yielded: runtime.Gosched, a boundary that gives way (exitblock.go).
	yielded() *thread
	// park: "if (curThread does a wait()) move curThread from enabled
	// set to wait set; count as lock_exit" (Fig 2.9).
	park() *thread
	// exit: "if (curThread dies) remove curThread from both enabled and
	// old_enabled; goto LOOP" (Fig 2.7).
	exit() *thread
	// freeze: the step bound stopped the current thread for good (the
	// thesis's terminateAfter, 3.3.1), as exit.
	freeze() *thread
	// preempt ends the block here whatever the enabled set: a guided
	// schedule's recorded block end (lockExit: at a boundary, not at a go
	// statement or mid-block wake-up).
	preempt(lockExit bool) *thread

	// choose picks one of options at a notify or select choice point:
	// "select a thread T not in no_notify to wake up; if (there are
	// still threads waiting) push on stack (RetPt, ..., no_notify+T)"
	// (Fig 2.9). ok false: a re-executed block offered other options.
	choose(options []int32) (c int32, ok bool)
	// chosen records a choice the engine took itself (a guided one).
	chosen(c int32)
	// chooseTick picks which timer fires first among equal deadlines at
	// a tick, a choice point recorded with the block before it (clock.go).
	chooseTick(options []int32) int32
	// tickChosen records a tick's choice the engine took itself.
	tickChosen(c int32)
	// ticked: virtual time advanced after the last block of the path.
	ticked()

	// What reports and ExitBlock-DD's checks (2.5) need of the sets.

	// pathPrefix is a copy of the path plus the current block so far: it
	// replays the execution to the current event (a finding's schedule).
	pathPrefix() []decision
	// currentPath is the path so far (not a copy).
	currentPath() []decision
	// blocked is the lock block sets: threads waiting for a held lock.
	blocked() []sched.Blocked
	// delayedCount is the size of the delayed set (Fig 2.12).
	delayedCount() int
	// othersCanRun reports whether a thread other than t is enabled or
	// delayed.
	othersCanRun(t int32) bool
}

// newStrategy returns the strategy cfg.Algorithm names. All the configured
// algorithms are members of the ExitBlock family (Brute is its oracle).
func newStrategy(cfg *Config) strategy { return newExplorer(cfg) }

var _ strategy = (*explorer)(nil)

// decision is one step of a path (sched.Decision): the engine replays,
// records and reports paths in many places, which the alias keeps short.
type decision = sched.Decision
