// Package engine is xbtest's execution engine behind the hooks of package
// scheduler: it runs one execution of a test body with exactly one
// controlled goroutine running at a time, and calls the exploration
// strategy at the thesis's events. Package scheduler/internal/driver
// repeats executions until the exploration is over.
//
// # Who calls it
//
// Rewritten code calls package scheduler, whose hooks and drop-in types
// forward here or to package scheduler/internal/syncobj: the exported
// functions and types of this package named as there (Read, Go, Send,
// Mutex, AddInt32, TimeSleep, T...) are the runtime API, with the
// contracts package scheduler documents. Package scheduler's drop-in types
// are structs around this package's, at the same address (a Cond's L
// holds them: syncobj.DropInLock sees through them); Hot and LoadHot let
// scheduler.Load inline the fast path of Load.
//
// The drop-in objects of package syncobj (WaitGroup, Once, Cond) are built
// on this package's primitives (primitives.go: G, the calling goroutine,
// and its methods, with the order an operation calls them in and why), as
// loom's sync is on its rt. This package never imports syncobj: it keeps
// syncobj's per-execution state as an opaque ObjectTables, and a Cond
// releases the engine's locks through G.ReleaseForWait and G.HeldLock.
//
// The driver calls the rest (drive.go): an Execution runs one execution
// under a sched.Strategy and a Config and says how it ended (EndReason)
// and what it found (Finding); a Guide steers guided executions along a
// recorded schedule (xbtest -replay, shortening); Learnt and Stats are what
// an exploration keeps across its executions; RunNative runs a test body
// outside any execution.
//
// # Inside
//
// run.go is one execution (run) and goroutine.go its goroutines; the files
// of the hooks: memory.go, chan.go, select.go, mutex.go, syncmap.go,
// atomic.go, timers.go, context.go (syncstate.go for the locks' state in
// an execution); primitives.go for what package syncobj's objects call;
// clock.go for what a
// timer does; tso.go (Load, Store, Wrote), fences.go and foreign.go the
// hooks of the store buffers under -memory tso|pso; deadlock.go;
// location.go naming memory the same way in every execution, native.go
// for code outside any execution, outside.go for goroutines started
// before any; brute.go for the extra scheduling points of
// Algorithm Brute; guide.go and timeline.go for guided executions and
// their reports. audit.go lists what ends an atomic block under Go's
// rules, operation by operation. testing.go and subtest.go are T, the test
// handle, with go test's subtests, t.Parallel and -run/-skip.
//
// Four components live in packages of their own, each reaching the
// execution only through a host interface that run (hosts.go) or an
// adapter of this package implements: the store buffers of -memory
// tso|pso (package scheduler/internal/storebuf), race detection (package
// scheduler/internal/races, feeding package eraser), the virtual clock
// (package scheduler/internal/vclock: virtual time, timers, ticks, eager
// firing and its fairness bound; clock.go holds what a timer does at its
// deadline and clockHost) and deadlock detection (package
// scheduler/internal/deadlock: lock cycles, condition deadlocks, what each
// goroutine waits for; deadlock.go holds deadlockHost, mutex.go
// and endPath call its checks and add the findings).
//
// The strategy decides which goroutine runs each atomic block and keeps
// the stack of branches (package scheduler/internal/exitblock, the
// ExitBlock family, whose exitblock.go maps the thesis's pseudocode to its
// event handlers). The engine reaches it only through the interface
// sched.Strategy, and the strategy reaches the execution only through
// sched.Engine, which run implements (engine.go); package
// scheduler/internal/sched holds both and the types they exchange (paths,
// thread sets, read/write sets). This package does not know which strategy
// runs: the driver builds it. The settings are package settings'; the
// results, package result's.
package engine
