package engine_test

import (
	"strings"
	"testing"

	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/syncobj"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
)

// The engine under the driver: what an execution's failures of its own
// become in the result.

// A panic inside the scheduler itself is reported as an error of xbtest,
// not as a finding about the program, and exploration ends.
func TestPanicInsideTheSchedulerIsAnInternalError(t *testing.T) {
	defer engine.SetFaultHook(nil)
	n := 0
	engine.SetFaultHook(func() {
		if n++; n == 3 {
			var m map[int]int
			//lint:ignore SA5000 the fault under test
			m[0] = 1 // a fault in the scheduler's own frames
		}
	})
	res := driver.Explore("fault", func(t *testingobj.T) {
		var mu syncobj.Mutex
		for range 2 {
			engine.Go(func() { mu.Lock(); mu.Unlock() })
		}
	}, engine.DefaultConfig())
	if !strings.HasPrefix(res.Internal, "internal error: assignment to entry in nil map") || len(res.Findings) != 0 || res.Complete {
		t.Errorf("internal %q findings %v complete %v", res.Internal, res.Findings, res.Complete)
	}
	if engine.Tainted() != "" {
		t.Errorf("an internal error tainted the process")
	}
}

// A replayed prefix that does not reproduce is reported as such.
func TestDivergenceIsReported(t *testing.T) {
	calls := 0
	res := driver.Explore("diverge", func(t *testingobj.T) {
		calls++
		var mu syncobj.Mutex
		n := 2
		if calls > 1 {
			n = 1 // the program behaves differently on the same schedule
		}
		for range n {
			engine.Go(func() { mu.Lock(); mu.Unlock() })
		}
	}, engine.DefaultConfig())
	if !strings.HasPrefix(res.Internal, "replay diverged") {
		t.Errorf("internal %q", res.Internal)
	}
}
