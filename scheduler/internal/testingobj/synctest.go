package testingobj

import "github.com/xbtest/xbtest/scheduler/internal/engine"

// SynctestTest is testing/synctest's Test as go test's
// testingSynctestTest runs it: f gets a T of its own (the same name, t its
// parent, a context of its own) on the root goroutine of a new bubble
// (engine.SynctestRun), and its cleanups run there when f returns, before
// Test returns; Test waits for every goroutine of the bubble to exit. If f
// failed, the caller fails now, as in Go. Run, Parallel and Deadline panic
// on f's T, as in Go.
func SynctestTest(t *T, f func(*T)) {
	if t.finished {
		panic("testing: synctest.Run called during t.Cleanup")
	}
	sub := newT(t.x, t.name, t)
	sub.synctest = true
	engine.SynctestRun(func() { sub.runFunc(f) })
	if sub.failed {
		t.FailNow()
	}
}
