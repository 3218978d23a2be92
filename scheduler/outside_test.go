package scheduler_test

import (
	"bytes"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// Goroutines started outside any execution (package initialisation, as a
// library's package-level pool starts its ticker) are held while a test's
// executions run and let go when its exploration is over
// (engine/outside.go): the test's exploration is the same as without them,
// its result says it is incomplete and where they were started and held,
// and no finding claims a goroutine waited forever for one.

// outsideGoroutine starts, outside any execution, a goroutine that waits
// for release and then calls a hook (StoreInt32 of flag, a line the tests
// look for) until stop.
func outsideGoroutine(flag *int32, release <-chan struct{}, stop *atomic.Bool) (done <-chan struct{}) {
	d := make(chan struct{})
	xb.Go(func() { // outside any execution: a plain go statement
		defer close(d)
		<-release
		for !stop.Load() {
			xb.StoreInt32(flag, 1)
			runtime.Gosched()
		}
	})
	return d
}

// waitHeld waits until some goroutine is held (its stack is in the
// engine's holdOutside), in real time.
func waitHeld(t *testing.T) {
	deadline := time.Now().Add(time.Minute)
	buf := make([]byte, 1<<20)
	for !bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("engine.holdOutside(")) {
		if time.Now().After(deadline) {
			t.Fatal("the goroutine started outside the test was not held within a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// counter is two goroutines incrementing under a Mutex: 6 schedules
// (checked below without a goroutine outside).
func counter() {
	var mu xb.Mutex
	n := 0
	xb.Go(func() { mu.Lock(); n++; mu.Unlock() })
	mu.Lock()
	n++
	mu.Unlock()
}

func TestGoroutineStartedOutsideIsHeld(t *testing.T) {
	alone := xb.Explore("Alone", func(*xb.T) { counter() }, xb.DefaultConfig())
	if !alone.Complete || len(alone.Findings) != 0 {
		t.Fatalf("without a goroutine outside: %+v", alone)
	}

	var flag int32
	var stop atomic.Bool
	release := make(chan struct{})
	done := outsideGoroutine(&flag, release, &stop)
	res := xb.Explore("Held", func(*xb.T) {
		select {
		case <-release:
		default: // the first execution lets it go and waits until it is held
			close(release)
			waitHeld(t)
		}
		counter()
	}, xb.DefaultConfig())
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if res.Schedules != alone.Schedules || len(res.Findings) != 0 {
		t.Errorf("with a goroutine held: %d schedules, %d findings; want %d, none", res.Schedules, len(res.Findings), alone.Schedules)
	}
	if res.Complete || res.Bound != result.BoundOutside {
		t.Errorf("complete %v, bound %q; want incomplete, bound %q", res.Complete, res.Bound, result.BoundOutside)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "the goroutine started at scheduler/outside_test.go:27 before the test (e.g. by package initialisation) was held while the test ran (at scheduler/outside_test.go:31)") {
		t.Errorf("warnings do not say where the goroutine was started and held:\n%s", w)
	}
	// Let go when the exploration is over: it goes on natively.
	stop.Store(true)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the held goroutine was not let go after the exploration")
	}
}

// A test whose goroutine waits for what a held goroutine would do has no
// nontermination finding: Go would have run the held goroutine.
func TestNoProgressFindingWaitingForHeldGoroutine(t *testing.T) {
	var flag int32
	var stop atomic.Bool
	release := make(chan struct{})
	done := outsideGoroutine(&flag, release, &stop)
	defer func() { stop.Store(true); <-done }()
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 2000
	res := xb.Explore("WaitsForHeld", func(*xb.T) {
		select {
		case <-release:
		default:
			close(release)
			waitHeld(t)
		}
		var other int32
		xb.Go(func() { xb.StoreInt32(&other, 1) })
		xb.LoadInt32(&other)
		for xb.LoadInt32(&flag) == 0 { // the held goroutine's store never comes
		}
	}, cfg)
	if res.Schedules < 2 {
		t.Errorf("%d schedules; want several (the goroutine stays held in the executions after the first)", res.Schedules)
	}
	if res.Internal != "" {
		t.Fatalf("internal error: %s", res.Internal)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings %+v; want none", res.Findings)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "a nontermination at scheduler/outside_test.go:122 is not reported") {
		t.Errorf("warnings do not say the nontermination was not reported:\n%s", w)
	}
}
