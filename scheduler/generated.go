package scheduler

import (
	"testing"

	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
)

// What the rewriter generates calls of besides the hooks: the test entry
// point, the test handle, and the registrations of the helper file of each
// rewritten package.

// RunTest explores a rewritten test body: the rewriter turns
// `func TestX(t *testing.T) { body }` into
// `func TestX(t *testing.T) { scheduler.RunTest(t, func(t *scheduler.T) { body }) }`.
// go test sees the test fail if exploration found anything. It reads the
// command's settings from the environment and reports through the results
// file (package result's RunConfig and Line).
func RunTest(t *testing.T, body func(*T)) {
	t.Helper()
	driver.RunTest(t, body)
}

// T is the test handle a test body receives in place of *testing.T: one T
// serves one execution of the body. Its methods behave as in go test: Error
// marks the test failed and goes on, FailNow and Fatal end the calling
// goroutine with runtime.Goexit, Skip ends the test as skipped, Run runs a
// subtest on a goroutine of its own and waits for it.
type T = testingobj.T

// TB is the interface common to T and the handles of rewritten helpers; it
// has the methods of testing.TB (which cannot be implemented outside the
// testing package).
type TB = testingobj.TB

// Pos names a source position of instrumented code (see RegisterPositions);
// 0 is unknown.
type Pos = srcpos.Pos

// RegisterPositions records the positions of the memory accesses of one
// instrumented file and returns the Pos of the first; the rewriter numbers
// an access site k of the file base+k. lines holds the line of every site.
func RegisterPositions(file string, lines ...int32) Pos {
	return srcpos.RegisterPositions(file, lines...)
}

// RegisterExprs records the source text of the accesses at base, base+1...
// (the expression read or written), which names the variable in race
// reports. It returns base.
func RegisterExprs(base Pos, exprs ...string) Pos { return srcpos.RegisterExprs(base, exprs...) }

// RegisterRacy marks the access sites base+offsets[i] as racy by design
// (a //xbtest:racy directive on what they access), for reasons[i], and
// returns base.
func RegisterRacy(base Pos, offsets []int32, reasons []string) Pos {
	return engine.RegisterRacy(base, offsets, reasons)
}

// RewrittenFor is called by the generated helper file of every rewritten
// package, for rewritten code only: buffered says whether it was rewritten
// for store buffers (-memory tso or pso).
func RewrittenFor(buffered bool) bool { return engine.RewrittenFor(buffered) }

// SynctestTest replaces testing/synctest's Test: f runs on a new goroutine,
// the root of a bubble that every goroutine it starts joins, with a T of
// its own whose cleanups run in the bubble; SynctestTest returns once every
// goroutine of the bubble has exited, and ends the caller (FailNow) if f
// failed. Members blocked for good leave it waiting: a deadlock.
func SynctestTest(t *T, f func(*T)) { testingobj.SynctestTest(t, f) }

// SynctestWait replaces testing/synctest's Wait: it returns when no other
// goroutine can run, before virtual time moves. It panics outside a bubble.
func SynctestWait() { engine.SynctestWait() }

// ObservesCollection is called by the generated helper file of a rewritten
// package that calls runtime.GC, runtime.AddCleanup, runtime.SetFinalizer
// or weak.Make: the program may wait for an object to be collected, so
// executions do not keep the objects they see alive.
func ObservesCollection() bool { return engine.ObservesCollection() }
