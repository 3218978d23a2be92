package scheduler

import (
	"strings"
	"testing"
)

// A panic inside the scheduler itself is reported as an error of xbtest,
// not as a finding about the program, and exploration ends.
func TestPanicInsideTheSchedulerIsAnInternalError(t *testing.T) {
	defer func() { faultHook = nil }()
	n := 0
	faultHook = func() {
		if n++; n == 3 {
			var m map[int]int
			m[0] = 1 // a fault in the scheduler's own frames
		}
	}
	res := Explore("fault", func(t *T) {
		var mu Mutex
		for range 2 {
			Go(func() { mu.Lock(); mu.Unlock() })
		}
	}, DefaultConfig())
	if !strings.HasPrefix(res.Internal, "internal error: assignment to entry in nil map") || len(res.Findings) != 0 || res.Complete {
		t.Errorf("internal %q findings %v complete %v", res.Internal, res.Findings, res.Complete)
	}
	if tainted.Load() != nil {
		t.Errorf("an internal error tainted the process")
	}
}

// A replayed prefix that does not reproduce is reported as such.
func TestDivergenceIsReported(t *testing.T) {
	calls := 0
	res := Explore("diverge", func(t *T) {
		calls++
		var mu Mutex
		n := 2
		if calls > 1 {
			n = 1 // the program behaves differently on the same schedule
		}
		for range n {
			Go(func() { mu.Lock(); mu.Unlock() })
		}
	}, DefaultConfig())
	if !strings.HasPrefix(res.Internal, "replay diverged") {
		t.Errorf("internal %q", res.Internal)
	}
}
