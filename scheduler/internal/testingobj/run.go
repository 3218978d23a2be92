package testingobj

import (
	"testing"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// How a test starts: the engine runs an engine.Body on the test goroutine
// of each execution, and RunNative runs the body once with no execution
// under way.

// Body is f as the engine runs it (engine.Body): the top-level test's T,
// handed to the engine before f starts (its log goes into findings, and a
// FailNow on the test goroutine ends the test), then f with its parallel
// subtests and cleanups, as go test's tRunner runs it. Not inlined: the
// closure must stay this package's function (testingobj.Body.func1), an
// own frame of xbtest's, not the caller's (the driver's), or blocks would
// name it as their operation and position.
//
//go:noinline
func Body(f func(*T)) engine.Body {
	return func(x engine.Exec, name string, begin func(engine.Test)) {
		tt := newT(x, name, nil)
		begin(handle{tt})
		tt.runFunc(f)
	}
}

// handle is a T as the engine sees it (engine.Test); a type of its own,
// so that T's method set stays testing.T's.
type handle struct{ t *T }

func (h handle) Log() []string { return h.t.logs }

func (h handle) FailedNow() bool { return h.t.failNow }

// RunNative runs a rewritten test body once, with no execution under way:
// every hook behaves as the operation it replaces, and the test's failures
// and log go to t, as under go test.
func RunNative(t *testing.T, body func(*T)) {
	t.Helper()
	tt := newT(engine.Exec{}, t.Name(), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tt.runFunc(body)
	}()
	<-done
	for _, l := range tt.logs {
		t.Log(l)
	}
	switch {
	case tt.skipped && !tt.failed:
		t.SkipNow()
	case tt.failed:
		t.FailNow()
	}
}
