// Package engine is xbtest's controlled scheduler behind the hooks of
// package scheduler: the execution engine, which runs one execution of a
// test body with exactly one controlled goroutine running at a time, and
// the driver, which repeats executions until the exploration strategy has
// nothing left, a bound is hit or a finding stops it.
//
// # Who calls it
//
// Rewritten code calls package scheduler, whose hooks and drop-in types
// forward here: the exported functions and types of this package named as
// there (Read, Go, Send, Mutex, AddInt32, TimeSleep, T, RunTest...) are the
// runtime API, with the contracts package scheduler documents. Package
// scheduler's drop-in types are structs around this package's, at the same
// address (Cond's L holds them: DropInLock sees through them); Hot and
// LoadHot let scheduler.Load inline the fast path of Load. The test entry
// point is RunTest (settings from the environment, results to the results
// file); xbtest's own tests explore in process with Explore and Replay
// under a Config, and check the strategies with the oracle and the views
// of testsupport.go.
//
// # Inside
//
// The execution engine (run.go, goroutine.go and the files of the hooks:
// memory.go, chan.go, select.go, mutex.go, cond.go, waitgroup.go, once.go,
// syncmap.go, atomic.go, timers.go, context.go; syncstate.go for their
// state in an execution; clock.go and eager.go for virtual time, tso.go
// for store buffers under -memory tso|pso, deadlock.go, race.go feeding
// package eraser, location.go naming memory the same way in every
// execution, fingerprint.go for package-level state, native.go for code
// outside any execution; brute.go for the extra scheduling points of
// Algorithm Brute) runs one execution and calls the exploration strategy
// at the thesis's events. audit.go lists what ends an atomic block under
// Go's rules, operation by operation. testing.go and subtest.go are T, the
// test handle, with go test's subtests, t.Parallel and -run/-skip.
//
// The strategy decides which goroutine runs each atomic block and keeps
// the stack of branches; it is package scheduler/internal/exitblock, the
// ExitBlock family, whose exitblock.go maps the thesis's pseudocode to its
// event handlers. The driver (explore.go; runtest.go for the protocol with
// the command; follow.go and guide.go follow a recorded schedule and
// shorten a finding's; handover.go carries state across fork checkpoints)
// repeats executions and turns what it saw into a result.Result.
//
// The engine and the driver reach the strategy only through the interface
// sched.Strategy, and the strategy reaches the execution only through
// sched.Engine, which run implements (engine.go); package
// scheduler/internal/sched holds both and the types they exchange (paths,
// thread sets, read/write sets). newStrategy (strategy.go) builds the
// strategy from a Config: a second strategy would be another package
// implementing sched.Strategy. The settings are package settings'; the
// results, package result's.
package engine
