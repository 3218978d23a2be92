package driver_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/settings"
)

// The programs are thesis Ch. 4's (as package scheduler's tests write them,
// thesis_progs_test.go), against the scheduler's hooks: shared variables
// are heap cells (xb.New), every access is reported.

func rd(p *int) int {
	xb.Read(unsafe.Pointer(p), unsafe.Sizeof(*p), 0)
	return *p
}

func wr(p *int, v int) {
	xb.Write(unsafe.Pointer(p), unsafe.Sizeof(*p), 0)
	*p = v
}

// spawner starts goroutines that the test goroutine waits for at the end.
type spawner struct{ wg xb.WaitGroup }

func (s *spawner) goWait(f func()) {
	s.wg.Add(1)
	xb.Go(func() {
		defer s.wg.Done()
		f()
	})
}

// splitSync is Fig 4.2: the increment of x is split over two critical
// sections.
func splitSync(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	mu := xb.New(new(xb.Mutex))
	x := xb.New(new(int))
	for range 2 {
		sp.goWait(func() {
			mu.Lock()
			y := rd(x)
			mu.Unlock()
			mu.Lock()
			if rd(x) != y {
				t.Errorf("SplitSync.run: shared var was modified!")
			}
			wr(x, y+1)
			mu.Unlock()
		})
	}
}

// noEraser is Fig 4.4: B increments x without the lock if it reads 0 first.
func noEraser(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	mu := xb.New(new(xb.Mutex))
	x := xb.New(new(int))
	for _, name := range []string{"A", "B"} {
		sp.goWait(func() {
			mu.Lock()
			y := rd(x)
			mu.Unlock()
			if y == 0 && name == "B" {
				wr(x, rd(x)+1)
			} else {
				mu.Lock()
				wr(x, rd(x)+1)
				mu.Unlock()
			}
		})
	}
}

// deadlockWait is Fig 4.10: First waits on b while holding a; Second needs a
// before it can notify b.
func deadlockWait(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
	cb := xb.NewCond(b)
	sp.goWait(func() {
		a.Lock()
		b.Lock()
		cb.Wait()
		b.Unlock()
		a.Unlock()
	})
	sp.goWait(func() {
		a.Lock()
		a.Unlock()
		b.Lock()
		cb.Signal()
		b.Unlock()
	})
}

func countPreempt(bs []result.Block) int {
	n := 0
	for _, b := range bs {
		if b.Preempt {
			n++
		}
	}
	return n
}

// TestMinimise takes the longest failing schedule ExitBlock-DD explores
// (SplitSync, NoEraser, DeadlockWait) and shortens it: the result has at
// most the preemptions the bug needs (SplitSync one, the lost signal of
// DeadlockWait none; NoEraser's greedy result two, one more than its
// minimum) and still leads to the same failure.
func TestMinimise(t *testing.T) {
	for _, p := range []struct {
		name string
		body func(*xb.T)
		kind result.Kind
		want int // preemptions at most
	}{{"SplitSync", splitSync, result.Assertion, 1}, {"NoEraser", noEraser, result.Race, 2}, {"DeadlockWait", deadlockWait, result.Deadlock, 0}} {
		t.Run(p.name, func(t *testing.T) {
			cfg := engine.DefaultConfig()
			cfg.Algorithm = settings.ExitBlockDD
			worst := driver.WorstSchedule(p.name, p.body, cfg, p.kind)
			if worst == nil {
				t.Fatal("no failing schedule")
			}
			short, sh := driver.MinimiseSchedule(p.name, p.body, engine.DefaultConfig(), worst, p.kind, time.Minute)
			if short == nil || sh == nil {
				t.Fatal("the worst schedule does not lead to the finding")
			}
			t.Logf("%s: shortened from %d to %d blocks (%d preemptions to %d) in %d tries", p.name, len(worst), len(short), countPreempt(worst), countPreempt(short), sh.Tries)
			if countPreempt(worst) <= p.want || countPreempt(short) > p.want || len(short) >= len(worst) {
				t.Errorf("%d blocks, %d preemptions, from %d and %d: want at most %d preemptions", len(short), countPreempt(short), len(worst), countPreempt(worst), p.want)
			}
			if sh.Blocks != len(worst) || sh.Preemptions != countPreempt(worst) || sh.Stopped {
				t.Errorf("recorded the original as %+v", sh)
			}
			got := driver.Replay(p.name, p.body, engine.DefaultConfig(), short, result.Want{Kind: p.kind})
			if !got.Replay.Reproduced {
				t.Errorf("the short schedule does not lead to the %s: %s", p.kind, got.Replay.Diverged)
			}
		})
	}
}

// TestMinimiseStopsAtItsTimeBound: shortening past its time bound tries no
// more candidates, keeps the schedule it has (which still leads to the
// finding) and says it stopped. A long schedule (a goroutine stopped at
// -max-steps) would otherwise be tried ~250 times, every step traced.
func TestMinimiseStopsAtItsTimeBound(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Algorithm = settings.ExitBlockDD
	worst := driver.WorstSchedule("SplitSync", splitSync, cfg, result.Assertion)
	if worst == nil {
		t.Fatal("no failing schedule")
	}
	short, sh := driver.MinimiseSchedule("SplitSync", splitSync, engine.DefaultConfig(), worst, result.Assertion, 0)
	if sh == nil {
		t.Fatal("the worst schedule does not lead to the finding")
	}
	if !sh.Stopped || sh.Tries != 0 || len(short) != len(worst) || sh.Blocks != len(worst) {
		t.Errorf("got %d blocks of %d, %+v: want the schedule kept, no tries, stopped", len(short), len(worst), *sh)
	}
	if got := driver.Replay("SplitSync", splitSync, engine.DefaultConfig(), short, result.Want{Kind: result.Assertion}); !got.Replay.Reproduced {
		t.Errorf("the kept schedule does not lead to the assertion: %s", got.Replay.Diverged)
	}
}
