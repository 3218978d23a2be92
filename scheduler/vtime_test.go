package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// Virtual time: the clock moves only when no goroutine can run, to the
// earliest deadline, and every execution starts at the same epoch.

// A test that sleeps an hour moves the virtual clock by exactly an hour (in
// no real time: BenchmarkSleepHour), alone or with a second goroutine.
func TestSleepAdvancesTheVirtualClock(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			done := xb.MakeChan[time.Duration](1)
			xb.Go(func() {
				xb.TimeSleep(30 * time.Minute)
				xb.Send(done, xb.TimeSince(start))
			})
			xb.TimeSleep(time.Hour)
			out(fmt.Sprintf("child %v, test %v, at %s", xb.Recv(done), xb.TimeSince(start), start.Format(time.DateOnly)))
		}
	})
	want := []string{"child 30m0s, test 1h0m0s, at 2000-01-01"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A time read before the execution (a package variable that time.Now set at
// init) is earlier than every virtual time, as Go's monotonic clock
// promises: jackc/puddle v2.2.3 keeps time.Since(globalStart), and its
// TestPoolCreateResource failed on the first schedule while virtual times
// had no monotonic reading (2000-01-01 against today's wall clock: 26 years
// back). The virtual clock still reads 2000-01-01, as under synctest.
func TestVirtualTimeIsAfterTimesReadBefore(t *testing.T) {
	before := xb.TimeNow() // the real time
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			now := xb.TimeNow()
			xb.TimeSleep(time.Second)
			out(fmt.Sprintf("%v %v %v %v %s", xb.TimeSince(before) > 20*365*24*time.Hour, now.After(before), xb.TimeUntil(before) < 0,
				xb.TimeSince(now), now.UTC().Format(time.DateTime)))
		}
	})
	want := []string{"true true true 1s 2000-01-01 00:00:00"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Outside an execution the hooks are the real functions.
func TestClockOutsideAnExecutionIsReal(t *testing.T) {
	if xb.TimeNow().Year() < 2025 {
		t.Errorf("TimeNow outside an execution is not the real time")
	}
	start := time.Now()
	<-xb.TimeAfter(time.Millisecond)
	if time.Since(start) < time.Millisecond {
		t.Errorf("TimeAfter outside an execution did not wait")
	}
}

// fetch is the time-out race of the corpus: the worker sends on an
// unbuffered channel the caller stops listening to after its time-out.
func fetch(work, timeout time.Duration, out func(string)) func(*xb.T) {
	return func(*xb.T) {
		ch := xb.MakeChan[int](0)
		xb.Go(func() {
			xb.TimeSleep(work)
			xb.Send(ch, 42) // leaks when the caller has timed out
		})
		var v int
		i, _ := xb.Select(false, xb.RecvCase(ch, &v), xb.RecvCase(xb.TimeAfter(timeout), nil))
		if i == 0 {
			out("value")
		} else {
			out("timeout")
		}
	}
}

func TestSlowWorkerLeaksItsSendAfterTimeout(t *testing.T) {
	var outs []string
	res := explore(t, t.Name(), fetch(2*time.Second, time.Second, func(s string) { outs = append(outs, s) }), xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
		t.Fatalf("findings %v", res.Findings)
	}
	g := res.Findings[0].Goroutines
	if len(g) != 1 || g[0].ID != "T0.1" || g[0].On != "chan send" {
		t.Errorf("goroutines %+v", g)
	}
	if slices.Contains(outs, "value") {
		t.Errorf("a worker slower than the time-out delivered its value: %v", outs)
	}
}

func TestFastWorkerDoesNotLeak(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) { return fetch(time.Millisecond, time.Second, out) })
	if !slices.Equal(got, []string{"value"}) {
		t.Errorf("got %q", got)
	}
}

// With equal deadlines the worker may send before the caller's timer fires
// or after: both happen, and the second leaks.
func TestEqualDeadlinesExploreBothOrders(t *testing.T) {
	seen := map[string]bool{}
	// Under synctest's rule (the counts below are its; with -timers 1ms,
	// the default, the time-out due at the same instant may also fire as a
	// block of the clock, which explores the same outcomes in 5 and 7).
	res := explore(t, t.Name(), fetch(time.Second, time.Second, func(s string) { seen[s] = true }), synctestConfig())
	if !seen["value"] || !seen["timeout"] {
		t.Errorf("outcomes %v", seen)
	}
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
		t.Errorf("findings %v", res.Findings)
	}
	// The worker's sleep fires first (only the sleeper observes it); then
	// the caller's timer fires (the time-out: the worker's send leaks,
	// whether the caller or the worker runs first), or the worker runs
	// before it (the value). ExitBlock-RW ends the path on which the
	// caller runs first with the worker delayed (its send touches nothing
	// the caller does); ExitBlock-DD runs that path to the leak too.
	if res.Schedules != 4 {
		t.Errorf("%d schedules, want 4", res.Schedules)
	}
	cfg := synctestConfig()
	cfg.Algorithm = settings.ExitBlockDD
	res = explore(t, t.Name(), fetch(time.Second, time.Second, func(string) {}), cfg)
	if res.Schedules != 5 || len(res.Findings) != 1 || res.Findings[0].Count != 3 {
		t.Errorf("exitblock-dd: %d schedules, findings %v, want 5 and a leak on 3", res.Schedules, res.Findings)
	}
}

// Two timers with the same deadline in one select: either may win.
func TestEqualTimersInASelectBothWin(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			xb.Go(func() {})
			a, b := xb.TimeNewTimer(time.Second), xb.TimeNewTimer(time.Second)
			i, _ := xb.Select(false, xb.RecvCase(a.C, nil), xb.RecvCase(b.C, nil))
			out(fmt.Sprint("case ", i))
		}
	})
	if !slices.Equal(got, []string{"case 0", "case 1"}) {
		t.Errorf("got %q", got)
	}
}

// A goroutine asleep when the test returns is not leaked: it wakes and ends.
func TestSleeperIsNotALeak(t *testing.T) {
	none(t, func(*xb.T) {
		xb.Go(func() { xb.TimeSleep(time.Hour) })
	})
}

// Stop before the deadline reports true and nothing is ever sent; Reset
// re-arms.
func TestTimerStopAndReset(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			tm := xb.TimeNewTimer(time.Second)
			stopped := xb.TimerOf(tm).Stop()
			xb.Go(func() {})
			xb.TimerOf(tm).Reset(2 * time.Second)
			at := xb.Recv(tm.C)
			again := xb.TimerOf(tm).Stop()
			out(fmt.Sprint(stopped, " ", at.Sub(start), " ", xb.TimeSince(start), " ", again))
		}
	})
	if !slices.Equal(got, []string{"true 2s 2s false"}) {
		t.Errorf("got %q", got)
	}
}

// A ticker ticks every period until stopped; a stopped ticker moves no time.
func TestTickerTicksUntilStopped(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			tk := xb.TimeNewTicker(100 * time.Millisecond)
			var ticks []time.Duration
			for range 3 {
				ticks = append(ticks, xb.Recv(tk.C).Sub(start))
			}
			xb.TickerOf(tk).Stop()
			xb.Go(func() { xb.TimeSleep(time.Second) })
			out(fmt.Sprint(ticks))
		}
	})
	if !slices.Equal(got, []string{"[100ms 200ms 300ms]"}) {
		t.Errorf("got %q", got)
	}
}

// AfterFunc starts its function on a goroutine named after its caller.
func TestAfterFuncRunsOnAChildGoroutine(t *testing.T) {
	res := explore(t, t.Name(), func(*xb.T) {
		done := xb.MakeChan[int](0)
		xb.TimeAfterFunc(time.Minute, func() { xb.Send(done, 1) })
		xb.Go(func() {})
		xb.TimeSleep(2 * time.Minute) // the function blocks forever: nobody receives
	}, xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak || res.Findings[0].Goroutines[0].ID != "T0.2" {
		t.Fatalf("findings %+v", res.Findings)
	}
}

// A context's deadline cancels it on the virtual clock; cancel from another
// goroutine races with the deadline only if they can be ordered both ways.
func TestContextWithTimeout(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			ctx, cancel := xb.ContextWithTimeout(context.Background(), time.Second)
			defer cancel()
			child, cancelChild := xb.ContextWithCancel(ctx)
			defer cancelChild()
			xb.Go(func() {})
			xb.Recv(child.Done())
			d, _ := ctx.Deadline()
			out(fmt.Sprint(child.Err(), " ", xb.TimeSince(start), " ", d.Sub(start)))
		}
	})
	if !slices.Equal(got, []string{"context deadline exceeded 1s 1s"}) {
		t.Errorf("got %q", got)
	}
}

func TestContextCancelRacesWithDeadline(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			ctx, cancel := xb.ContextWithTimeout(context.Background(), time.Second)
			xb.Go(func() {
				xb.TimeSleep(time.Second)
				cancel()
			})
			xb.Recv(ctx.Done())
			out(ctx.Err().Error())
		}
	})
	if !slices.Equal(got, []string{"context canceled", "context deadline exceeded"}) {
		t.Errorf("got %q", got)
	}
}

// context.AfterFunc runs on cancellation; stop before it prevents it.
func TestContextAfterFunc(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			ctx, cancel := xb.ContextWithCancelCause(context.Background())
			ran := xb.MakeChan[string](1)
			xb.ContextAfterFunc(ctx, func() { xb.Send(ran, "ran") })
			stop := xb.ContextAfterFunc(ctx, func() { xb.Send(ran, "stopped one ran") })
			stopped := stop()
			xb.Go(func() { cancel(fmt.Errorf("done")) })
			out(fmt.Sprint(xb.Recv(ran), " ", stopped, " ", xb.ContextCause(ctx)))
		}
	})
	if !slices.Equal(got, []string{"ran true done"}) {
		t.Errorf("got %q", got)
	}
}

// A sleep-based ordering a test relies on is not a guarantee between
// goroutines sleeping equally long... but is one when the sleeps differ by
// more than the eager horizon (-timers D: a goroutine woken at 1ms may not
// have run yet when a timer due within D of then fires), and under
// synctest's rule by any amount.
func TestSleepOrdersGoroutinesByDeadline(t *testing.T) {
	sleepers := func(da, db time.Duration) func(out func(string)) func(*xb.T) {
		return func(out func(string)) func(*xb.T) {
			return func(*xb.T) {
				ch := xb.MakeChan[string](2)
				xb.Go(func() { xb.TimeSleep(db); xb.Send(ch, "b") })
				xb.Go(func() { xb.TimeSleep(da); xb.Send(ch, "a") })
				out(xb.Recv(ch) + xb.Recv(ch))
			}
		}
	}
	for _, c := range []struct {
		a, b, timers time.Duration
		want         []string
	}{
		{time.Millisecond, 2 * time.Millisecond, 0, []string{"ab"}},
		{time.Millisecond, 2 * time.Millisecond, time.Millisecond, []string{"ab", "ba"}},
		{time.Millisecond, 3 * time.Millisecond, time.Millisecond, []string{"ab"}},
		{time.Millisecond, time.Hour, time.Duration(settings.Eager), []string{"ab", "ba"}},
	} {
		cfg := xb.DefaultConfig()
		cfg.Timers = settings.Timers(c.timers)
		got, _ := outcomes(t, t.Name(), sleepers(c.a, c.b), cfg)
		if !slices.Equal(got, c.want) {
			t.Errorf("sleeps %v and %v, -timers %s: got %q, want %q", c.a, c.b, settings.Timers(c.timers), got, c.want)
		}
	}
}

// synctestConfig is the default configuration under synctest's rule.
func synctestConfig() xb.Config {
	cfg := xb.DefaultConfig()
	cfg.Timers = settings.Synctest
	return cfg
}

// An hour of virtual sleep under exploration costs microseconds of real
// time: two goroutines sleep an hour each, every schedule explored.
func BenchmarkSleepHour(b *testing.B) {
	var res *result.Result
	for b.Loop() {
		res = xb.Explore("sleep", func(*xb.T) {
			xb.Go(func() { xb.TimeSleep(time.Hour) })
			xb.TimeSleep(time.Hour)
		}, xb.DefaultConfig())
		if res.Internal != "" || len(res.Findings) != 0 || !res.Complete {
			b.Fatal(res.Internal, res.Findings)
		}
	}
	b.ReportMetric(float64(res.Schedules), "schedules/op")
}

// heartbeatHour beats every second on a ticker while the test sleeps an
// hour (and half a second, so that the last beat and the end do not race),
// then stops it: 3600 ticks, each a scheduling point.
func heartbeatHour(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		stop := xb.MakeChan[struct{}](0)
		beats := xb.MakeChan[int](0)
		xb.Go(func() {
			tk := xb.TimeNewTicker(time.Second)
			n := 0
			for {
				if i, _ := xb.Select(false, xb.RecvCase(tk.C, nil), xb.RecvCase(stop, nil)); i == 1 {
					xb.TickerOf(tk).Stop()
					xb.Send(beats, n)
					return
				}
				n++
			}
		})
		xb.TimeSleep(time.Hour + time.Second/2)
		xb.Close(stop)
		out(fmt.Sprint(xb.Recv(beats), " beats"))
	}
}

func TestHeartbeatHour(t *testing.T) {
	if got := reach(t, heartbeatHour); !slices.Equal(got, []string{"3600 beats"}) {
		t.Errorf("got %q", got)
	}
}

// An hour of heartbeats: 3600 ticks of the virtual clock.
func BenchmarkHeartbeatHour(b *testing.B) {
	var res *result.Result
	for b.Loop() {
		res = xb.Explore("heartbeat", heartbeatHour(func(string) {}), xb.DefaultConfig())
		if res.Internal != "" || len(res.Findings) != 0 || !res.Complete {
			b.Fatal(res.Internal, res.Findings)
		}
	}
	b.ReportMetric(float64(res.Schedules), "schedules/op")
}

// A goroutine waiting on a stopped timer's channel or a context nobody
// cancels is blocked forever; the report names the channel.
func TestBlockedOnTimerChannelIsNamed(t *testing.T) {
	var made string
	f := one(t, func(*xb.T) {
		made = next()
		tm := xb.TimeNewTimer(time.Second)
		xb.TimerOf(tm).Stop()
		xb.Go(func() { xb.Recv(tm.C) })
	}, result.Leak, "blocked forever")
	if g := f.Goroutines; len(g) != 1 || g[0].On != "chan receive (time.Timer.C, made at "+made+")" {
		t.Errorf("goroutines %+v", g)
	}
	f = one(t, func(*xb.T) {
		made = next()
		ctx, _ := xb.ContextWithCancel(context.Background())
		xb.Go(func() { xb.Recv(ctx.Done()) })
	}, result.Leak, "blocked forever")
	if g := f.Goroutines; len(g) != 1 || g[0].On != "chan receive (ctx.Done() of the context made at "+made+")" {
		t.Errorf("goroutines %+v", g)
	}
	// A select names its cases when one of them is such a channel.
	var after string
	f = one(t, func(*xb.T) {
		made = next()
		ctx, _ := xb.ContextWithCancel(context.Background())
		ch := xb.MakeChan[int](0)
		after = next()
		tm := xb.TimeNewTimer(time.Hour)
		xb.TimerOf(tm).Stop()
		xb.Go(func() {
			xb.Select(false, xb.SendCase(ch, 1), xb.RecvCase(ctx.Done(), nil), xb.RecvCase(tm.C, nil))
		})
	}, result.Leak, "blocked forever")
	want := "select: chan send; chan receive (ctx.Done() of the context made at " + made + "); chan receive (time.Timer.C, made at " + after + ")"
	if g := f.Goroutines; len(g) != 1 || g[0].On != want {
		t.Errorf("goroutines %+v, want one on %s", g, want)
	}
}

// A goroutine that fails to take a lock held by a sleeper leaves nothing
// enabled: the execution that resumes there opens with a tick, whose
// choices are explored like any other's.
func TestTickAfterFailedLockExploresOrders(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			var mu xb.Mutex
			for range 2 {
				xb.Go(func() {
					mu.Lock()
					xb.TimeSleep(time.Second)
					mu.Unlock()
				})
			}
			a, b := xb.TimeNewTimer(time.Second), xb.TimeNewTimer(time.Second)
			i, _ := xb.Select(false, xb.RecvCase(a.C, nil), xb.RecvCase(b.C, nil))
			out(fmt.Sprint("case ", i))
		}
	})
	if !slices.Equal(got, []string{"case 0", "case 1"}) {
		t.Errorf("got %q", got)
	}
}

// Timer channels behave as Go 1.23's: nothing is buffered, so len and cap
// are 0; a due timer's value waits for a receiver, stamped with the
// deadline; Stop and Reset report a due timer nobody received from as
// pending and leave no stale value; a ticker nobody read drops the ticks it
// missed (the first receive gets the first missed tick at once, the next
// waits for the next period).
func TestTimerChannelsFollowGo123(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			since := func(v time.Time) time.Duration { return v.Sub(start) }
			xb.Go(func() {})
			tk := xb.TimeNewTicker(100 * time.Millisecond)
			xb.TimeSleep(time.Second)
			a := xb.Recv(tk.C)
			b := xb.Recv(tk.C) // at 1.1s
			xb.TickerOf(tk).Stop()
			tm := xb.TimeNewTimer(100 * time.Millisecond) // due at 1.2s
			xb.TimeSleep(200 * time.Millisecond)
			l, c := xb.Len(tm.C), cap(tm.C)
			stopped := xb.TimerOf(tm).Stop()
			i, _ := xb.Select(true, xb.RecvCase(tm.C, nil))
			reset := xb.TimerOf(tm).Reset(100 * time.Millisecond) // due at 1.4s
			xb.TimeSleep(200 * time.Millisecond)
			reset2 := xb.TimerOf(tm).Reset(100 * time.Millisecond) // due at 1.6s
			v := xb.Recv(tm.C)
			out(fmt.Sprint(since(a), " ", since(b), " len ", l, " cap ", c, " ", stopped, " ", i, " ", reset, " ", reset2, " ", since(v), " ", xb.TimerOf(tm).Stop()))
		}
	})
	// What the same calls print under go test with Go 1.26's real timers.
	want := []string{"100ms 1.1s len 0 cap 0 true -1 false true 1.6s false"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A time.After that lost its select is never fired: nobody waits on it, so
// it moves no time and adds no orders. The loop below leaves eight of them
// behind, all due at the same instant; before, every order of their firings
// was explored after the test returned.
func TestAbandonedTimersAddNoSchedules(t *testing.T) {
	loop := func(timeout func() <-chan time.Time) func(*xb.T) {
		return func(t *xb.T) {
			ch := xb.MakeChan[int](0)
			xb.Go(func() {
				for i := range 8 {
					xb.Send(ch, i)
				}
				xb.Close(ch)
			})
			for {
				i, ok := xb.Select(false, xb.RecvCase(ch, nil), xb.RecvCase(timeout(), nil))
				if i == 1 {
					t.Errorf("timed out")
				}
				if !ok {
					return
				}
			}
		}
	}
	never := explore(t, "never", loop(func() <-chan time.Time { return xb.MakeChan[time.Time](0) }), xb.DefaultConfig())
	after := explore(t, "after", loop(func() <-chan time.Time { return xb.TimeAfter(time.Second) }), xb.DefaultConfig())
	if after.Schedules != never.Schedules || len(after.Findings) != 0 {
		t.Errorf("with time.After: %d schedules, findings %v; with a channel nobody sends on: %d", after.Schedules, after.Findings, never.Schedules)
	}
}

// Two AfterFunc functions due at the same instant start in either order;
// due at different instants, only in the order of their deadlines.
func TestAfterFuncsAtOneInstantRunInEitherOrder(t *testing.T) {
	prog := func(da, db time.Duration) func(out func(string)) func(*xb.T) {
		return func(out func(string)) func(*xb.T) {
			return func(*xb.T) {
				var mu xb.Mutex
				var wg xb.WaitGroup
				var got []string
				wg.Add(2)
				for _, f := range []struct {
					name string
					d    time.Duration
				}{{"a", da}, {"b", db}} {
					xb.TimeAfterFunc(f.d, func() {
						mu.Lock()
						got = append(got, f.name)
						mu.Unlock()
						wg.Done()
					})
				}
				wg.Wait()
				out(strings.Join(got, ""))
			}
		}
	}
	if got := reach(t, prog(time.Second, time.Second)); !slices.Equal(got, []string{"ab", "ba"}) {
		t.Errorf("equal deadlines: %q, want both orders", got)
	}
	if got := reach(t, prog(time.Second, 2*time.Second)); !slices.Equal(got, []string{"ab"}) {
		t.Errorf("a first: %q", got)
	}
	// Nothing to choose: each function runs alone at its instant.
	if res := explore(t, t.Name(), prog(time.Second, 2*time.Second)(func(string) {}), xb.DefaultConfig()); res.Schedules != 1 {
		t.Errorf("different deadlines: %d schedules, want 1", res.Schedules)
	}
	if got := reach(t, prog(2*time.Second, time.Second)); !slices.Equal(got, []string{"ba"}) {
		t.Errorf("b first: %q", got)
	}
}

// Goroutines woken at one instant by timers run in either order, whichever
// kind of timer wakes them.
func TestTimersAtOneInstantWakeInEitherOrder(t *testing.T) {
	waits := map[string]func(){
		"Sleep": func() { xb.TimeSleep(time.Second) },
		"After": func() { xb.Recv(xb.TimeAfter(time.Second)) },
		"Timer": func() { xb.Recv(xb.TimeNewTimer(time.Second).C) },
		"Tick":  func() { xb.Recv(xb.TimeTick(time.Second)) },
	}
	for name, wait := range waits {
		got := reach(t, func(out func(string)) func(*xb.T) {
			return func(*xb.T) {
				var mu xb.Mutex
				var got []string
				done := xb.MakeChan[bool](0)
				for _, s := range []string{"a", "b"} {
					xb.Go(func() {
						wait()
						mu.Lock()
						got = append(got, s)
						mu.Unlock()
						xb.Send(done, true)
					})
				}
				xb.Recv(done)
				xb.Recv(done)
				out(strings.Join(got, ""))
			}
		})
		if !slices.Equal(got, []string{"ab", "ba"}) {
			t.Errorf("%s: %q, want both orders", name, got)
		}
	}
}

// Time does not pass while a goroutine runs: a loop that polls the clock
// spins, and the step bound stops it.
func TestPollingTheClockIsStoppedByTheStepBound(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 1000
	res := xb.Explore("poll", func(*xb.T) {
		xb.Go(func() {})
		for start := xb.TimeNow(); xb.TimeSince(start) < time.Second; {
		}
	}, cfg)
	if res.Complete || res.Bound != "steps" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "goroutine T0 was stopped after 1000 scheduling steps") {
		t.Errorf("complete=%v bound=%q warnings=%q internal=%q", res.Complete, res.Bound, res.Warnings, res.Internal)
	}
}
