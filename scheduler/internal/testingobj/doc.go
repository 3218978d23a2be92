// Package testingobj is the model of *testing.T under xbtest: T, the test
// handle a rewritten test body receives in place of *testing.T, and TB,
// the interface it shares with the handles of rewritten helpers. It says
// what each method does when the body runs as one execution of an
// exploration, so that a test fails, skips, logs, runs subtests and cleans
// up as under go test, and so that every interleaving of its parallel
// subtests is explored.
//
// # Where it sits
//
// Rewritten code names it through package scheduler, whose T and TB are
// this package's (aliases). As packages syncobj and chanobj, it is built
// only on the primitives of package scheduler/internal/engine, listed in
// the engine's package doc ("Primitives of the drop-in objects", and "The
// test handle" for the few only T uses), and it imports the engine, never
// the reverse. The engine reaches back only through two types of its own:
//
//   - engine.Body: the driver turns the test's function into one with
//     Body, and hands it to the engine (engine.Execution.Reset), which
//     calls it on the test goroutine of each execution. Body makes the
//     top-level T for that execution (engine.Exec) and runs the function
//     as go test's tRunner does.
//   - engine.Test: what the engine keeps of the top-level T (handle): its
//     log, which every finding carries, and whether FailNow or SkipNow was
//     called, so that the test goroutine's Goexit ends the test.
//
// In a test binary a test started rather than the xbtest command (a test
// that runs its own binary, as go test would) the driver runs the body
// once with RunNative, on a T of no execution (the zero engine.Exec):
// every hook then behaves natively, and the log and the result go to the
// real *testing.T.
//
// Package srcpos names this package's frames by their package path, as
// xbtest's own (srcpos.OwnFrame): positions in reports skip them, and a block's
// operation in timelines is its outermost hook (T.Parallel, T.Run). Body
// is kept from being inlined into the driver for the same reason.
//
// # Failing, skipping, logging
//
// Fail marks the test and its ancestors failed, and the execution
// (engine.Exec.TestFailed), whichever goroutine calls it. Error and
// Errorf are a log line and Fail; inside an execution they are also an
// assertion finding of the running goroutine (G.AddFinding), keyed by
// position, after an Event, so that the finding has a place in the
// schedule that replays it. FailNow, Fatal and SkipNow end the calling
// goroutine (engine.Goexit, which tells the engine its worker goes with
// it); on the test goroutine of the top-level test they end the test,
// which the engine learns through engine.Test. SkipNow on the top-level
// test marks the execution skipped (engine.Exec.TestSkipped). The position
// of a report is the first frame outside xbtest and outside the functions
// Helper marked, in the test or any ancestor. As in go test, a test that
// has completed hands a Log to its closest running ancestor, and panics
// without one.
//
// # Subtests and t.Parallel
//
// Run runs a subtest on a goroutine of its own and waits for it
// (engine.GoAndJoin: starting it and starting to wait are one step, so
// the wait adds nothing to explore). Names are made as go test makes
// them, and -run and -skip select subtests level by level (subtest.go). A
// subtest that calls Parallel ends its parent's wait early (GoAndJoin's
// release) and waits on a barrier channel until its parent's function
// returns; the parent then closes the barrier and waits for each parallel
// subtest's end channel before its cleanups run. Those channels are
// package chanobj's (MakeChan, Send, Recv, Close), the very hooks
// rewritten code runs, so their events, blocks and happens-before edges
// are a program's. A top-level test is explored alone: Parallel only
// marks it.
//
// # Cleanups and context
//
// Cleanup functions run last in, first out when the function and its
// parallel subtests have returned; then Context's context (chanobj's
// ContextWithCancel, on the virtual clock) is cancelled and TempDir's
// directories removed. Setenv and Chdir restore through cleanups, and
// panic after Parallel, as in go test.
//
// # Files
//
// testing.go (T, TB, failures, logs, cleanups, Parallel), subtest.go
// (subtest names, -run and -skip), run.go (Body, the handle the engine
// keeps, RunNative).
package testingobj
