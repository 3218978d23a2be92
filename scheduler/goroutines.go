package scheduler

import (
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Goroutines: the go statement and the runtime functions that schedule.

// Go starts f on a new controlled goroutine; it replaces the go statement.
// The rewriter evaluates the arguments of `go f(a, b)` before calling Go, as
// Go does. Outside an execution Go is a plain go statement.
func Go(f func()) { engine.Go(f) }

// Goexit replaces runtime.Goexit.
func Goexit() { engine.Goexit() }

// Step is a scheduling event without an operation: the rewriter puts it on
// loop back edges, so that a loop that touches no shared state still counts
// towards the step bound (the thesis's terminateAfter) instead of hanging.
//
// With one goroutine there is nothing to schedule or bound, so it costs a
// load and a test (the watchdog tells a long sequential loop from a blocked
// goroutine by its state, see the engine's run.wait).
func Step() { engine.Step() }

// Gosched replaces runtime.Gosched: a block boundary at which the goroutine
// gives way to the others when it yields twice in a row (see the explorer's
// yielded), so that a loop polling with Gosched ends in every path.
func Gosched() { engine.Gosched() }

// Stack replaces runtime.Stack: in an execution, the dump shows the
// goroutines and frames the program would see under go test, not the
// scheduler's (see the engine's Stack).
func Stack(buf []byte, all bool) int { return engine.Stack(buf, all) }

// NumGoroutine replaces runtime.NumGoroutine: in an execution, the count go
// test would give, without the scheduler's goroutines (see the engine's
// NumGoroutine).
func NumGoroutine() int { return engine.NumGoroutine() }

// GC replaces runtime.GC: a collection, then the cleanups and finalizers
// it queued have run, so that a test that waits for them sees the same in
// every execution of a schedule.
func GC() { engine.GC() }
