package scheduler_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// Eager timers (eager.go): under -timers eager or a duration, a due timer
// may fire while goroutines could still run.

// earlyTimeout: a worker waits for done or a time-out of d; the test closes
// done at once and records which case the worker took.
func earlyTimeout(d time.Duration) func(out func(string)) func(*xb.T) {
	return func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			done := xb.MakeChan[struct{}](0)
			took := xb.MakeChan[string](1)
			xb.Go(func() {
				i, _ := xb.Select(false, xb.RecvCase(done, nil), xb.RecvCase(xb.TimeAfter(d), nil))
				xb.Send(took, []string{"done", "timeout"}[i])
			})
			xb.Close(done)
			out(xb.Recv(took))
		}
	}
}

func withTimers(cfg xb.Config, d settings.Timers) xb.Config {
	cfg.Timers = d
	return cfg
}

var eagerAlgos = []settings.Algorithm{settings.ExitBlock, settings.ExitBlockRW, settings.ExitBlockDD, settings.ExitBlockRWDD, settings.Brute}

// Under synctest's rule the 1 ns time-out never beats the close (someone
// can always run); under eager timers and under a horizon that covers it,
// it can, under every algorithm; a horizon shorter than the time-out
// changes nothing.
func TestEagerTimerOvertakesRunnableGoroutines(t *testing.T) {
	cases := []struct {
		timeout time.Duration
		timers  settings.Timers
		want    []string
	}{
		{time.Nanosecond, 0, []string{"done"}},
		{time.Nanosecond, settings.Eager, []string{"done", "timeout"}},
		{time.Nanosecond, settings.Timers(time.Millisecond), []string{"done", "timeout"}},
		{10 * time.Millisecond, settings.Timers(time.Millisecond), []string{"done"}},
		{10 * time.Millisecond, settings.Eager, []string{"done", "timeout"}},
	}
	for _, c := range cases {
		for _, a := range eagerAlgos {
			cfg := xb.DefaultConfig()
			cfg.Algorithm = a
			got, res := outcomes(t, t.Name(), earlyTimeout(c.timeout), withTimers(cfg, c.timers))
			if !slices.Equal(got, c.want) {
				t.Errorf("time-out %v, -timers %s, -algo %s: %d schedules reach %v, want %v", c.timeout, c.timers, a, res.Schedules, got, c.want)
			}
		}
	}
}

// A goroutine looping on a 1 ns ticker alternates with the clock while the
// test goroutine could run; the fairness bound makes the clock wait for the
// test goroutine, so the exploration ends (it is not stopped by the step
// bound) and the stop is seen after any number of ticks up to the bound.
func TestEagerTickerLoopGivesWay(t *testing.T) {
	cfg := withTimers(xb.DefaultConfig(), settings.Eager)
	cfg.FairBlocks = 8
	got, res := outcomes(t, t.Name(), func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			stop := xb.MakeChan[struct{}](0)
			ticks := xb.MakeChan[int](1)
			xb.Go(func() {
				tk := xb.TimeNewTicker(time.Nanosecond)
				defer xb.TickerOf(tk).Stop()
				n := 0
				for {
					if i, _ := xb.Select(false, xb.RecvCase(stop, nil), xb.RecvCase(tk.C, nil)); i == 0 {
						xb.Send(ticks, n)
						return
					}
					n++
				}
			})
			xb.Close(stop)
			out(fmt.Sprint(xb.Recv(ticks)))
		}
	}, cfg)
	// The worker's first block starts its ticker and waits; then the clock
	// and the worker alternate, one tick per two blocks, while the test
	// goroutine (its block ended at the go statement, at decision 0)
	// waits: at decision 8 it has waited FairBlocks blocks.
	if want := []string{"0", "1", "2", "3"}; !slices.Equal(got, want) || len(res.Warnings) > 0 {
		t.Errorf("%d schedules reach %v (warnings %v), want %v", res.Schedules, got, res.Warnings, want)
	}
}

// The horizon is the delay a runnable goroutine may be made to wait, not a
// budget each timer renews: a test goroutine that sleeps a millisecond at a
// time until another goroutine, runnable all along, has run, sees it run
// within a millisecond of when it could have run under -timers 1ms (it was
// a failure "did not run in 20ms" in the schedule that fired every sleep
// ahead of it). Under
// -timers eager, by contrast, the sleeps may go on up to the fairness bound.
func TestHorizonCountsFromWhenAGoroutineCouldRun(t *testing.T) {
	polls := func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			ran := xb.New(new(int32))
			ch := xb.MakeChan[struct{}](0)
			xb.Go(func() {
				xb.Close(ch)
				xb.StoreInt32(ran, 1)
			})
			xb.Recv(ch)
			i := 0
			for xb.LoadInt32(ran) == 0 && i < 20 {
				xb.TimeSleep(time.Millisecond)
				i++
			}
			out(fmt.Sprint(i))
		}
	}
	for _, c := range []struct {
		timers settings.Timers
		want   []string
	}{
		// 2: the goroutine ran up to its store (a scheduling point) at
		// 1ms, then waited for the sleep due at 2ms.
		{settings.Timers(time.Millisecond), []string{"0", "1", "2"}},
		{settings.Synctest, []string{"0", "1"}},
	} {
		for _, a := range eagerAlgos {
			cfg := xb.DefaultConfig()
			cfg.Algorithm = a
			got, res := outcomes(t, t.Name(), polls, withTimers(cfg, c.timers))
			if !slices.Equal(got, c.want) {
				t.Errorf("-timers %s, -algo %s: %d schedules reach %v, want %v", c.timers, a, res.Schedules, got, c.want)
			}
		}
	}
	cfg := withTimers(xb.DefaultConfig(), settings.Eager)
	cfg.FairBlocks = 8
	got, res := outcomes(t, t.Name(), polls, cfg)
	if len(got) < 3 || got[0] != "0" || slices.Contains(got, "20") {
		t.Errorf("-timers eager, -fair-blocks 8: %d schedules reach %v, want 0, 1, 2..., never 20", res.Schedules, got)
	}
}
