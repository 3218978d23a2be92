package scheduler_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// testing/synctest: SynctestTest runs its function in a bubble and waits
// for every goroutine of it; SynctestWait returns once no other goroutine
// can run, before virtual time moves.

// Wait returns once both goroutines have blocked, whatever their order,
// and time has not moved; the sleeper wakes only when the test sleeps too.
// Two goroutines racing for a lock: two orders, each its own schedule, and
// every schedule sees both blocked.
func TestSynctestWaitSeesEveryGoroutineBlocked(t *testing.T) {
	seen := map[string]bool{}
	body := func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			var mu xb.Mutex
			order := ""
			ch := xb.MakeChan[int](0)
			start := xb.TimeNow()
			for _, name := range []string{"a", "b"} {
				xb.Go(func() {
					mu.Lock()
					order += name
					mu.Unlock()
					xb.Recv(ch)
					xb.TimeSleep(time.Second)
				})
			}
			xb.SynctestWait()
			mu.Lock()
			got := order
			mu.Unlock()
			seen[fmt.Sprintf("%s at +%v", got, xb.TimeSince(start))] = true
			xb.Send(ch, 0)
			xb.Send(ch, 0)
			xb.TimeSleep(2 * time.Second)
			seen[fmt.Sprintf("end at +%v", xb.TimeSince(start))] = true
		})
	}
	res := explore(t, t.Name(), body, xb.DefaultConfig())
	if len(res.Findings) != 0 {
		t.Fatalf("findings %v", res.Findings)
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	})
	want := []string{"ab at +0s", "ba at +0s", "end at +2s"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if res.Schedules != 20 {
		t.Errorf("%d schedules, want 20", res.Schedules)
	}
}

// A finding after a Wait: its schedule replays (the waiter is woken at the
// same point, where time would otherwise have moved), and reproduces it.
func TestSynctestWaitReplays(t *testing.T) {
	body := func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			var mu xb.Mutex
			order := ""
			for _, name := range []string{"a", "b"} {
				xb.Go(func() {
					xb.TimeSleep(time.Second)
					mu.Lock()
					order += name
					mu.Unlock()
				})
			}
			xb.SynctestWait()
			xb.SynctestWait() // woken at once: its blocks before and after must stay apart
			xb.TimeSleep(time.Second)
			xb.SynctestWait()
			mu.Lock()
			defer mu.Unlock()
			if order == "ba" {
				t.Errorf("order %s", order)
			}
		})
	}
	res := explore(t, t.Name(), body, xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion {
		t.Fatalf("findings %v", res.Findings)
	}
	f := res.Findings[0]
	got := xb.Replay(t.Name(), body, xb.DefaultConfig(), f.Blocks, result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
	if out := got.Replay; !out.Reproduced || out.Diverged != "" || got.Internal != "" {
		t.Fatalf("not reproduced: diverged %q, internal %q, findings %v\nblocks %+v", out.Diverged, got.Internal, got.Findings, f.Blocks)
	}
	if g := got.Findings[0]; g.Message != f.Message || g.Pos != f.Pos {
		t.Errorf("replayed %q at %s, recorded %q at %s", g.Message, g.Pos, f.Message, f.Pos)
	}
	if res.Schedules != 5 {
		t.Errorf("%d schedules, want 5", res.Schedules)
	}
}

// A bubble whose goroutine blocks forever leaves SynctestTest waiting: a
// deadlock naming both.
func TestSynctestBubbleDeadlock(t *testing.T) {
	f := one(t, func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			ch := xb.MakeChan[int](0)
			xb.Go(func() { xb.Recv(ch) })
		})
	}, result.Deadlock, "all goroutines are asleep")
	var ons []string
	for _, g := range f.Goroutines {
		ons = append(ons, g.On)
	}
	if !slices.Equal(ons, []string{"synctest.Test", "chan receive"}) {
		t.Errorf("goroutines wait on %q", ons)
	}
}

// Cleanups of the bubble's T run in the bubble before SynctestTest
// returns, and a goroutine they start joins the bubble and is waited for
// (it runs after the root has exited: no time passes then, see
// TestSynctestTimeStopsAfterRoot).
// A failure in the bubble fails the caller, which stops there; what the
// bubble's T logs is the test's log.
func TestSynctestCleanupAndFailure(t *testing.T) {
	var log []string
	res := explore(t, t.Name(), func(t *xb.T) {
		log = log[:0]
		t.Cleanup(func() { log = append(log, "outer cleanup") })
		xb.SynctestTest(t, func(t *xb.T) {
			t.Cleanup(func() {
				ch := xb.MakeChan[int](0)
				xb.Go(func() {
					xb.Recv(ch)
					log = append(log, "late goroutine")
				})
				log = append(log, "bubble cleanup")
				xb.Close(ch)
			})
			t.Log("logged in the bubble")
			fmt.Fprint(t.Output(), "written in the bubble")
			t.Errorf("failed in the bubble")
		})
		log = append(log, "after Test")
	}, xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion || !strings.Contains(res.Findings[0].Message, "failed in the bubble") {
		t.Fatalf("findings %v", res.Findings)
	}
	// The bubble's T logs as the test's: the finding carries its lines.
	if l := strings.Join(res.Findings[0].Log, "\n"); !strings.Contains(l, "logged in the bubble") || !strings.Contains(l, "written in the bubble") {
		t.Errorf("the finding's log %q lacks the bubble's lines", res.Findings[0].Log)
	}
	want := []string{"bubble cleanup", "late goroutine", "outer cleanup"}
	if !slices.Equal(log, want) {
		t.Errorf("log %q, want %q", log, want)
	}
}

// Wait outside a bubble, and a second Wait in the same bubble, panic as in
// Go.
func TestSynctestWaitMisuse(t *testing.T) {
	one(t, func(t *xb.T) { xb.SynctestWait() }, result.Panic, "goroutine is not in a bubble")
	one(t, func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			xb.Go(func() { xb.SynctestWait() })
			xb.SynctestWait()
		})
	}, result.Panic, "wait already in progress")
	one(t, func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) { xb.SynctestTest(t, func(t *xb.T) {}) })
	}, result.Panic, "from within a synctest bubble")
}

// Once the root goroutine has exited, time stops in the bubble: a goroutine
// asleep then never wakes, a deadlock, as in Go ("main bubble goroutine has
// exited but blocked goroutines remain").
func TestSynctestTimeStopsAfterRoot(t *testing.T) {
	one(t, func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			xb.Go(func() { xb.TimeSleep(time.Minute) })
		})
	}, result.Deadlock, "all goroutines are asleep")
	// Before the root exits, time passes as usual.
	none(t, func(t *xb.T) {
		xb.SynctestTest(t, func(t *xb.T) {
			xb.Go(func() { xb.TimeSleep(time.Minute) })
			xb.TimeSleep(time.Hour)
		})
	})
}
