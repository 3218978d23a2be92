// Package engine is xbtest's execution engine behind the hooks of package
// scheduler: it runs one execution of a test body with exactly one
// controlled goroutine running at a time, and calls the exploration
// strategy at the thesis's events. Package scheduler/internal/driver
// repeats executions until the exploration is over.
//
// # Who calls it
//
// Rewritten code calls package scheduler, whose hooks and drop-in types
// forward here or to the packages of drop-in objects,
// scheduler/internal/syncobj and scheduler/internal/chanobj, or to the
// model of *testing.T, package scheduler/internal/testingobj: the exported
// functions and types of this package named as there (Read, Go, Step,
// Load...) are the runtime API, with the contracts package scheduler
// documents. Package scheduler's drop-in types are structs around this
// package's or syncobj's, at the same address (a Cond's L holds them:
// syncobj.DropInLock sees through them); Hot and LoadHot let
// scheduler.Load inline the fast path of Load. Two of package scheduler's
// registrations and helpers forward past this package: RegisterPositions
// and RegisterExprs to package srcpos, SortKeys and Maps* to package
// maporder.
//
// The drop-in objects are built on this package's primitives, as loom's
// sync is on its rt (below): package syncobj's (Mutex, RWMutex, WaitGroup,
// Once, Cond, the atomics, Map, Pool) and package chanobj's (channels and
// select, the time package's hooks and timers, contexts), and so is T,
// the test handle (package testingobj, on chanobj's channels for parallel
// subtests and T.Context). This package imports none of them: it keeps
// their per-execution state as opaque ObjectTables, each package's in a
// Slot of its own, a lock's state as its lock bookkeeping (Lock), a
// timer's channel or a context's deadline as a TimerTarget, the test
// handle as a Test, started by a Body the driver makes, and names their
// frames by package path only (own frames, operation names).
//
// The driver calls the rest (drive.go): an Execution runs one execution
// under a sched.Strategy and a Config and says how it ended (EndReason)
// and what it found (Finding); a Guide steers guided executions along a
// recorded schedule (xbtest -replay, shortening); Learnt and Stats are what
// an exploration keeps across its executions. Execution.Reset takes the
// test's Body, which package testingobj makes (testingobj.Body); outside
// any execution the driver runs the body with testingobj.RunNative.
//
// # Primitives of the drop-in objects
//
// A drop-in object (package syncobj) keeps its own semantics and
// per-execution state and reaches the execution only through these
// (primitives.go), methods of G, the calling goroutine:
//
//   - Enter() *G: the calling goroutine; nil outside any execution (or on
//     a goroutine xbtest does not control): behave as the native object.
//   - OpPoint(): the scheduling point an operation may start with
//     (Algorithm Brute; at access granularity, after an access).
//   - Event(): the operation's scheduling event: numbers it (a replayed
//     block ends at an event number), fences the store buffer, counts a
//     step.
//   - DataAccess(addr, size, write): the explorer's note of data the
//     operation reads or writes (a counter, a buffer, an atomic).
//   - SyncEnter(addr, always): the explorer's note of a lock enter or
//     another synchronization a new goroutine could interfere with.
//   - Races() *races.Races, Index(): the happens-before edges (Publish on a
//     release, Observe on an acquire, the channel and map roles) and the
//     goroutine's name in them.
//   - EndBlock(): the end of the atomic block (a lock exit or an operation
//     that counts as one).
//   - Park(on, id): wait until woken; on and the object's id describe the
//     wait in deadlock reports and the timeline. Wake(w, relock): make a
//     parked goroutine runnable (relock: the lock a Cond waiter takes
//     again, if held, else -1). WokeMidBlock(): the woken one may run
//     before the rest of the waker's block (a branch, as after go).
//   - Choose(options) int32: a choice the explorer branches on (which
//     waiter a Signal wakes), recorded in schedules.
//   - Fatal(msg): Go's "fatal error:" (unlock of an unlocked mutex): a
//     finding at the first caller outside xbtest; the execution ends.
//   - NewObject() int32: an object's id in this execution. Objects(slot,
//     mk): the object package's per-execution tables (ObjectTables, reset
//     with each execution), in the Slot the package reserved (NewSlot)
//     when it was initialised. Epoch(): the execution's number in the
//     process, for state kept in the object itself (a Pool's items).
//   - MadeByBody(addr), ChangedState(why): whether memory is the test
//     body's; package state the driver's fingerprint may not see changed.
//   - Wrote(): the goroutine wrote shared memory (progress, for the step
//     bound). RelaxedCASStart(addr, size): the start of a compare-and-swap
//     that -cas relaxed makes no fence (false: an ordinary one).
//   - Lock(addr, rw) *Lock: the lock bookkeeping of a Mutex or RWMutex
//     (who holds it, a writer waiting for readers), which deadlock
//     detection, the race detector's locksets and the timeline read; its
//     methods ID, Writer, Pending, SetPending, Readers, ReadBy, Clocks.
//   - A lock enter: WaitRelease(l) while the goroutine holds it itself
//     for writing (it waits for another goroutine's release),
//     AcquireFailed(l, mode) when another holds it (the block is
//     abandoned, or a reader-writer cycle ends the path), TakeWrite(l) or
//     TakeRead(l), then Acquired(l, read) (a boundary where a TryLock or a
//     mixed RWMutex makes one). A lock exit: ReleaseWrite(l) or
//     ReleaseRead(l), then LockExit(l); Released(l) for a release that is
//     no exit (Cond.Wait). TriedLock(l), SeenRW(l, read), MixedRW(l):
//     what moves block boundaries (the exploration may start over
//     knowing it). SelfDeadlock(l, mode), ReverseLockChain(l, mode),
//     DetectsDeadlocks(): a writer that starts waiting for readers. The
//     three checks take their positions at a fixed depth: call them
//     straight from the lock's method.
//
// An operation calls them in this order: Enter; OpPoint, then Event (the
// point first, so that it has an event number of its own); DataAccess or
// SyncEnter, before the effect (a block's read/write set is what it did
// before it ended); the effect with its happens-before edges; then
// EndBlock after a release or anything else that counts as a lock exit
// (thesis 2.3), or Park to wait. Whoever makes a waiter's condition true
// calls Wake before its own EndBlock, so that the explorer sees the waiter
// enabled at the boundary.
//
// # Channels, timers and contexts
//
// Package chanobj's objects use those primitives and a few more
// (chanprims.go), for what happens outside any goroutine's operation (a
// timer firing at a tick) and for the virtual clock:
//
//   - Exec(): the execution, as a value (Exec) that contexts compare to
//     know theirs; Running(), and DataAccess, Races, Wake, Objects for a
//     timer's action, which no goroutine performs. SpawnFor(t, parent, fn,
//     byClock, key): start an AfterFunc's function on a child of parent,
//     by t's block or by a tick.
//   - Allocated(addr, size): the operation made memory of the test body (a
//     channel). InternalError(msg): an error of xbtest itself.
//     UnfencedEvent(): Event for an operation that is no fence (reading
//     the clock). RuntimeError: the panic value of a runtime error the
//     scheduler raises for the program (send on a closed channel). Where
//     an object was made, for reports, is package srcpos's (Caller).
//   - Channels xbtest does not control (native.go): ParkNative(cases, got,
//     served, on) parks until one of the operations of cases proceeds,
//     which the engine tries at every scheduling point and tick;
//     Exec.Watch(done, fire, gone) runs fire when a context xbtest did not
//     make is done. NotControlled names such a channel in reports.
//   - The virtual clock (package vclock, clock.go): Timer, made by
//     SleepTimer (wakes a sleeper), FuncTimer (starts time.AfterFunc's
//     function) or TargetTimer (acts on a TimerTarget: its Fire, Idle,
//     FiresAtOnce and Wakes are what clockHost asks of a timer's channel
//     or a context's deadline); G.StartTimer, and Exec's Now,
//     ClockAccess, StopTimer, ResetTimer, TimerDue, TakeTimer, AddTimer,
//     TimerOf, AddTicker and TickerOf.
//
// # The test handle
//
// Package testingobj's T, the model of *testing.T, uses the primitives of
// the drop-in objects (Enter, Event), chanobj's channels and contexts, and
// a few of its own (testprims.go):
//
//   - Body(x, name, begin): a test's function as the engine runs it on the
//     test goroutine of each execution (runBody): it makes the top-level
//     test's handle, hands it to begin as a Test before the function
//     starts, then runs the function, its parallel subtests and its
//     cleanups. Test.Log() is the log each finding carries;
//     Test.FailedNow(): FailNow or SkipNow was called, so the test
//     goroutine's Goexit ends the test (a failure).
//   - Exec.TestFailed(), Exec.TestSkipped(): the execution's test failed
//     (any T's Fail) or was skipped (the top-level T's SkipNow).
//   - G.ID(), G.AddFinding(f, key): an assertion (T.Error) as a finding
//     of the running block, named by its goroutine.
//   - GoAndJoin(f): T.Run's subtest on a goroutine of its own, started and
//     waited for in one step; f's release ends the wait early
//     (T.Parallel). Goexit(): FailNow and SkipNow end the goroutine.
//
// T names the position of a failure by the first frame outside xbtest and
// its helpers, as package srcpos tells them (OwnFrame, Short).
//
// # Inside
//
// run.go is one execution (run: its scheduling points, the explorer's
// dispatch, findings, the per-execution tables) and goroutine.go its
// goroutines; memory.go the hooks of memory accesses and allocations;
// locks.go the lock bookkeeping (the locks' state in an execution) and
// where lock operations end blocks; native.go goroutines waiting on
// channels xbtest does not control. Those four files hold run's methods;
// what else acts on an execution is a primitive (G's, Exec's) or a method
// of an adapter of run. primitives.go is what the drop-in objects call,
// chanprims.go what package chanobj's call besides; clock.go what a timer
// does (clockHost); tso.go (Load, Store, Wrote), fences.go and foreign.go
// the hooks of the store buffers under -memory tso|pso; deadlock.go;
// outside.go goroutines started before any; brute.go why Algorithm Brute
// and access granularity add scheduling points (G.OpPoint); guide.go the
// engine's side of guided executions (guideHost: their scheduling points,
// the anchor a schedule records of a point). audit.go lists
// what ends an atomic block under Go's rules, operation by operation.
// testprims.go is what T (package testingobj) needs of an execution.
//
// Six components live in packages of their own, each with its own state,
// reaching the execution only through a host interface that an adapter of
// run implements (none for location, which needs nothing of it): the
// store buffers of -memory tso|pso (package scheduler/internal/storebuf;
// bufHost, hosts.go), race detection (package scheduler/internal/races,
// feeding package eraser; raceHost, hosts.go), the virtual clock (package
// scheduler/internal/vclock: virtual time, timers, ticks, eager firing and
// its fairness bound; clock.go holds what a timer does at its deadline and
// clockHost), deadlock detection (package scheduler/internal/deadlock:
// lock cycles, condition deadlocks, what each goroutine waits for;
// deadlock.go holds deadlockHost, locks.go and endPath call its checks and
// add the findings), guided executions (package scheduler/internal/guide:
// following a recorded schedule, and the timeline a traced one records;
// guideHost, guide.go) and the names of memory across executions (package
// scheduler/internal/location: package-level variables, the heap index,
// canonical read/write sets). Two packages the engine uses need no
// execution at all: scheduler/internal/srcpos (source positions, Pos and
// its registry, the first frame outside xbtest, source lines) and
// scheduler/internal/maporder (the fixed order of map iteration, which
// package scheduler's SortKeys and Maps* forward to).
//
// The strategy decides which goroutine runs each atomic block and keeps
// the stack of branches (package scheduler/internal/exitblock, the
// ExitBlock family, whose exitblock.go maps the thesis's pseudocode to its
// event handlers). The engine reaches it only through the interface
// sched.Strategy, and the strategy reaches the execution only through
// sched.Engine, which an adapter of run implements (stratHost,
// engine.go); package scheduler/internal/sched holds both and the types
// they exchange (paths, thread sets, read/write sets). This package does not know which strategy
// runs: the driver builds it. The settings are package settings'; the
// results, package result's.
package engine
