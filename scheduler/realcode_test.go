package scheduler_test

// Shapes of real library test suites that exploration must get right:
// each was seen wrong on golang.org/x/sync, go-cache or the like (see
// cmd/xbtest's real-world panel).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// A goroutine that calls runtime.Goexit from a function whose deferred
// calls then wait for a lock another goroutine holds (singleflight's
// TestGoexitDo): the block is abandoned mid-Goexit, and the worker whose
// goroutine Goexit ends must not run a later goroutine.
func TestGoexitInsideContendedDefer(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.Watchdog = 2 * time.Second
	res := xb.Explore("goexit", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		var wg xb.WaitGroup
		for range 3 {
			wg.Add(1)
			xb.Go(func() {
				defer wg.Done()
				defer func() {
					mu.Lock()
					mu.Unlock()
				}()
				mu.Lock()
				mu.Unlock()
				xb.Goexit()
			})
		}
		wg.Wait()
	}, cfg)
	if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || res.Schedules < 10 {
		t.Fatalf("complete=%v schedules=%d findings=%v internal=%q", res.Complete, res.Schedules, res.Findings, res.Internal)
	}
}

// A goroutine that polls another with runtime.Gosched (x/sync/semaphore's
// TestAllocCancelDoesntStarve): every path ends, with no finding.
func TestGoschedPollingEnds(t *testing.T) {
	cfg := xb.DefaultConfig()
	res := xb.Explore("gosched", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		queued := xb.New(new(int))
		done := xb.MakeChan[bool](0)
		xb.Go(func() {
			mu.Lock()
			wr(queued, 1)
			mu.Unlock()
			xb.Send(done, true)
		})
		for {
			mu.Lock()
			q := rd(queued)
			mu.Unlock()
			if q == 1 {
				break
			}
			xb.Gosched()
		}
		xb.Recv(done)
	}, cfg)
	if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("complete=%v schedules=%d findings=%v warnings=%q internal=%q", res.Complete, res.Schedules, res.Findings, res.Warnings, res.Internal)
	}
}

// A goroutine that polls without yielding (x/sync/semaphore's
// TestWeightedAcquireCanceled: for sem.TryAcquire(1) { sem.Release(1) }):
// Go's scheduler preempts it, so the fairness bound makes it give way,
// every path ends, and it is no finding.
func TestBusyPollingGivesWay(t *testing.T) {
	cfg := xb.DefaultConfig()
	res := xb.Explore("poll", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		queued := xb.New(new(int))
		done := xb.MakeChan[bool](0)
		xb.Go(func() {
			for {
				mu.Lock() // TryAcquire
				q := rd(queued)
				mu.Unlock()
				if q == 1 {
					break
				}
				mu.Lock() // Release
				mu.Unlock()
			}
			xb.Send(done, true)
		})
		mu.Lock()
		wr(queued, 1) // the other side queues for good
		mu.Unlock()
		xb.Recv(done)
	}, cfg)
	if res.Internal != "" || !res.Complete || len(res.Findings) != 0 {
		t.Fatalf("complete=%v bound=%q schedules=%d findings=%v internal=%q", res.Complete, res.Bound, res.Schedules, res.Findings, res.Internal)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "fairness: a goroutine that polled") {
		t.Errorf("notes %q: the give-way is not said", res.Notes)
	}
	// Without the bound the first path polls until the step bound.
	cfg.FairBlocks = 0
	cfg.MaxSteps = 2000
	cfg.MaxSchedules = 1
	res = xb.Explore("poll", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		done := xb.MakeChan[bool](0)
		xb.Go(func() {
			for range 100000 {
				mu.Lock()
				mu.Unlock()
			}
			xb.Send(done, true)
		})
		xb.Recv(done)
	}, cfg)
	if res.Complete || res.Bound == "" {
		t.Errorf("-fair-blocks 0: complete=%v bound=%q", res.Complete, res.Bound)
	}
}

// A goroutine started anew in every schedule, and leaked, under another
// name each time: one finding.
func TestLeakNamedByItsGoStatement(t *testing.T) {
	cfg := xb.DefaultConfig()
	res := xb.Explore("leak", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		var wg xb.WaitGroup
		for range 3 {
			wg.Add(1)
			xb.Go(func() {
				defer wg.Done()
				mu.Lock()
				mu.Unlock()
				xb.Go(func() { xb.Recv(xb.MakeChan[int](0)) })
			})
		}
		wg.Wait()
	}, cfg)
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
		t.Fatalf("findings %v, want one leak", res.Findings)
	}
	if f := res.Findings[0]; f.Count > res.Schedules+res.Aborted {
		t.Errorf("seen in %d executions of %d", f.Count, res.Schedules+res.Aborted)
	}
}

// A goroutine left looping on a ticker when the test returns (go-cache's
// janitor): the test is over, time stops, and it is no finding.
func TestTickerLeftBehindIsNoFinding(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 10000
	res := xb.Explore("janitor", func(t *xb.T) {
		stop := xb.MakeChan[bool](0)
		xb.Go(func() {
			tk := xb.TimeNewTicker(time.Minute)
			for {
				if i, _ := xb.Select(false, xb.RecvCase(tk.C, nil), xb.RecvCase(stop, nil)); i == 1 {
					return
				}
			}
		})
	}, cfg)
	if len(res.Findings) != 0 || !res.Complete || res.Internal != "" {
		t.Fatalf("findings %v complete=%v warnings=%q internal=%q", res.Findings, res.Complete, res.Warnings, res.Internal)
	}
	// Blocked on the channel alone, it is a leak.
	res = xb.Explore("blocked", func(t *xb.T) {
		stop := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Recv(stop) })
	}, cfg)
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
		t.Fatalf("findings %v, want a leak", res.Findings)
	}
}

// A goroutine that logs after its test completed panics, as under go test.
func TestLogAfterTheTestPanics(t *testing.T) {
	res := xb.Explore("log", func(t *xb.T) {
		done := xb.MakeChan[bool](1)
		xb.Go(func() {
			xb.Recv(done)
			t.Logf("late")
		})
		xb.Send(done, true)
	}, xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Panic || !strings.Contains(res.Findings[0].Message, "Log in goroutine after log has completed: late") {
		t.Fatalf("findings %v", res.Findings)
	}
}

// A goroutine that polls while every other one sleeps (ants's
// longRunningFunc: for atomic.LoadInt32(&stop) == 0 { runtime.Gosched() },
// stopped by a test that sleeps first; its Reboot test's select loop on a
// closed channel): in Go time passes meanwhile, so virtual time advances
// once it has polled alone FairBlocks times, and the test ends, no finding.
func TestPollingAloneLetsTimePass(t *testing.T) {
	for _, c := range []struct {
		name string
		poll func(stop *xb.Int32, closed chan bool)
	}{
		{"gosched", func(stop *xb.Int32, _ chan bool) {
			for stop.Load() == 0 {
				xb.Gosched()
			}
		}},
		{"closed-channel", func(stop *xb.Int32, closed chan bool) {
			for {
				xb.Recv(closed)
				if stop.Load() != 0 {
					return
				}
			}
		}},
	} {
		cfg := xb.DefaultConfig()
		res := xb.Explore(c.name, func(t *xb.T) {
			stop := xb.New(new(xb.Int32))
			closed := xb.MakeChan[bool](0)
			xb.Close(closed)
			sp := xb.New(new(spawner))
			sp.goWait(func() { c.poll(stop, closed) })
			xb.TimeSleep(10 * time.Millisecond)
			stop.Store(1)
			sp.wg.Wait()
		}, cfg)
		if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || len(res.Warnings) != 0 {
			t.Errorf("%s: complete=%v bound=%q schedules=%d findings=%v warnings=%q internal=%q", c.name, res.Complete, res.Bound, res.Schedules, res.Findings, res.Warnings, res.Internal)
		}
	}
}

// Two goroutines that poll a channel until a timer closes it (jackc/puddle
// v2.2.3's stress tests: time.AfterFunc(time.Second, func() { close(done) })
// and two loops on select { case <-done: return; default: }). Virtual time
// moves only when no goroutine can run, and they can; in Go time passes
// while they spin and the timer ends their loops. They poll together, so
// time passes: the first path ends with no step bound (it used to spin into
// the bound, with a nontermination finding whose schedule did not replay).
// Paths that keep spinning and reach the bound while the timer is pending
// are a bound, not a finding. Without the timer nothing ends the loops: a
// finding.
func TestPollingTogetherLetsTimePass(t *testing.T) {
	for _, c := range []struct {
		timer     bool
		schedules int
	}{{true, 1}, {true, 300}, {false, 1}} {
		cfg := xb.DefaultConfig()
		cfg.MaxSteps = 1000
		cfg.MaxSchedules = c.schedules
		res := xb.Explore("poll", func(t *xb.T) {
			done := xb.MakeChan[struct{}](0)
			sp := xb.New(new(spawner))
			for range 2 {
				sp.goWait(func() {
					for {
						if i, _ := xb.Select(true, xb.RecvCase(done, nil)); i == 0 {
							return
						}
					}
				})
			}
			if c.timer {
				xb.TimeAfterFunc(time.Second, func() { xb.Close(done) })
			}
			sp.wg.Wait()
		}, cfg)
		if res.Internal != "" || res.Complete || res.Schedules != c.schedules {
			t.Fatalf("%+v: complete=%v schedules=%d internal=%q", c, res.Complete, res.Schedules, res.Internal)
		}
		steps := strings.Contains(strings.Join(res.Warnings, "\n"), "was stopped after 1000 scheduling steps")
		switch {
		case c.timer && c.schedules == 1 && (steps || len(res.Findings) != 0):
			t.Errorf("%+v: the timer did not end the first path: findings %v, warnings %q", c, res.Findings, res.Warnings)
		case c.timer && len(res.Findings) != 0:
			t.Errorf("%+v: a pending timer would end the loops, but: %v", c, res.Findings)
		case !c.timer && (!steps || len(res.Findings) != 1 || res.Findings[0].Kind != result.NonTermination):
			t.Errorf("%+v: without the timer: findings %v, warnings %q; want one nontermination at the bound", c, res.Findings, res.Warnings)
		}
	}
}

// A finding reached after goroutines polled together and time passed
// replays from its schedule: the tick happens at the same point of the
// replayed path.
func TestPollingTogetherFindingReplays(t *testing.T) {
	body := func(t *xb.T) {
		done := xb.MakeChan[struct{}](0)
		mu := xb.New(new(xb.Mutex))
		order := xb.New(new(int))
		sp := xb.New(new(spawner))
		for g := range 2 {
			sp.goWait(func() {
				for {
					if i, _ := xb.Select(true, xb.RecvCase(done, nil)); i == 0 {
						break
					}
				}
				mu.Lock()
				wr(order, rd(order)*10+g+1)
				mu.Unlock()
			})
		}
		xb.TimeAfterFunc(time.Second, func() { xb.Close(done) })
		sp.wg.Wait()
		mu.Lock()
		if o := rd(order); o != 12 {
			t.Errorf("the pollers ended in the order %d", o)
		}
		mu.Unlock()
	}
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 1000
	cfg.MaxSchedules = 200
	res := xb.Explore("polltogether", body, cfg)
	if res.Internal != "" || len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion {
		t.Fatalf("findings %v, internal %q; want the assertion", res.Findings, res.Internal)
	}
	f := res.Findings[0]
	if f.Unreproduced != "" {
		t.Errorf("the exploration could not replay it: %s", f.Unreproduced)
	}
	got := xb.Replay("polltogether", body, cfg, f.Blocks, result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
	if out := got.Replay; !out.Reproduced || out.Diverged != "" || got.Internal != "" {
		t.Errorf("not reproduced: diverged %q, internal %q, findings %v", out.Diverged, got.Internal, got.Findings)
	}
	ticked := false
	for _, st := range got.Replay.Steps {
		ticked = ticked || strings.HasPrefix(st.Op, "time advances to +1s")
	}
	if !ticked {
		t.Errorf("the replayed schedule does not advance time: the timer did not end the loops")
	}
}

// A collection in the middle of an execution may give a freed object's
// address to a new one (otter's MPSC test: a loop variable of one call and
// of the next, in two goroutines), and race detection, which knows memory
// by address, would pair the two objects' accesses. A race seen after a
// collection is reported only if its schedule, replayed, shows it again.
// Here a collection completes during every execution (simulated), and the
// second goroutine writes the first one's object: in the first execution
// only (the "reuse"), or in every one (a race of one object).
// Third, a collection in the first execution only, of a race of one
// object: the race is kept, with the schedule of an execution that had no
// collection. Fourth, the reuse in every execution with a collection
// (otter's TestCache_DeletionListenerWritesTheKey, whose replay collected
// and paired the same two accesses on two objects again): the replay that
// confirms the race runs with the collector off (simulated: no cycle
// completes while it is off), and does not show it.
func TestRaceAfterACollectionIsConfirmed(t *testing.T) {
	var cycles uint64
	executions := 0
	gcFirstOnly := false
	collecting := func() bool {
		pct := debug.SetGCPercent(-1)
		debug.SetGCPercent(pct)
		return pct >= 0 && (!gcFirstOnly || executions <= 1)
	}
	defer engine.SetGCCyclesForTest(func() uint64 {
		if collecting() {
			cycles++
		}
		return cycles
	})()
	for _, c := range []struct{ always, gcFirstOnly, whenCollecting bool }{{false, false, false}, {true, false, false}, {true, true, false}, {false, false, true}} {
		always := c.always
		gcFirstOnly, executions = c.gcFirstOnly, 0
		cfg := xb.DefaultConfig()
		streamed := 0 // what a crash or a kill would report
		cfg.Found = func(*result.Finding) { streamed++ }
		res := xb.Explore("reuse", func(t *xb.T) {
			executions++
			a, b := new(int), new(int)
			if always || executions == 1 && !c.whenCollecting || c.whenCollecting && collecting() {
				b = a
			}
			// Not a synchronization xbtest knows of: no order
			// between the two writes.
			var wrote atomic.Bool
			xb.Go(func() {
				xb.Write(unsafe.Pointer(a), 8, 0)
				wrote.Store(true)
			})
			xb.Go(func() {
				for !wrote.Load() {
					xb.Gosched()
				}
				xb.Write(unsafe.Pointer(b), 8, 0)
			})
			// Orders to explore besides: several schedules.
			mu := xb.New(new(xb.Mutex))
			xb.Go(func() { mu.Lock(); mu.Unlock() })
			mu.Lock()
			mu.Unlock()
		}, cfg)
		if res.Internal != "" || !res.Complete {
			t.Fatalf("always=%v: %+v", always, res)
		}
		races := 0
		for _, f := range res.Findings {
			if f.Kind == result.Race {
				races++
				if f.Unreproduced != "" {
					t.Errorf("always=%v: a race kept that does not replay: %s", always, f.Unreproduced)
				}
			}
		}
		dropped := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "after the garbage collector ran, did not recur") })
		if always && (races != 1 || dropped) {
			t.Errorf("a race of one object, after a collection: %d race findings (want 1), dropped note %v", races, dropped)
		}
		if c.gcFirstOnly && (races != 1 || res.Findings[0].Schedule == 1) {
			t.Errorf("a collection in the first execution only: %d race findings (want 1, first seen after schedule 1), %d schedules", races, res.Schedules)
		}
		if want := map[bool]int{false: 0, true: 1}[c.gcFirstOnly]; streamed != want {
			t.Errorf("always=%v gcFirstOnly=%v: %d finding(s) streamed before being described, want %d (a race after a collection only once confirmed)", always, c.gcFirstOnly, streamed, want)
		}
		if !always && (races != 0 || !dropped) {
			t.Errorf("a race of two objects at one address, after a collection: %d race findings (want 0), dropped note %v; notes %q", races, dropped, res.Notes)
		}
	}
}

// A goroutine alone in a long loop of loads over many words (otter's map
// test: 100,000 rounds of Get over 100 keys) makes progress in its own
// local variables, which xbtest does not see: past -max-steps it is a
// bound, not a finding. One that polls a flag nobody will set, with
// nothing else able to run, does not terminate: that stays a finding.
func TestLongReadLoopIsABoundNotNontermination(t *testing.T) {
	for _, spin := range []bool{false, true} {
		cfg := xb.DefaultConfig()
		cfg.MaxSteps = 2000
		res := xb.Explore("readloop", func(t *xb.T) {
			words := make([]int64, 100)
			done := xb.MakeChan[bool](1)
			xb.Go(func() {
				if spin {
					for xb.LoadInt64(&words[0]) == 0 {
					}
				}
				for i := range 10_000 {
					xb.LoadInt64(&words[i%len(words)])
				}
				xb.Send(done, true)
			})
			if !spin {
				xb.Recv(done)
			}
		}, cfg)
		nonterm := 0
		for _, f := range res.Findings {
			if f.Kind == result.NonTermination {
				nonterm++
			}
		}
		if spin != (nonterm == 1) || len(res.Findings) != nonterm || res.Complete {
			t.Errorf("spin=%v: %d nontermination finding(s) of %d, complete %v; want one only for the goroutine that polls", spin, nonterm, len(res.Findings), res.Complete)
		}
	}
}

// Sequential subtests, the first taking a lock (sony/gobreaker's
// TestCustomDistributedCircuitBreaker under -algo brute): Run starts the
// subtest and waits for it in one step, so no order puts the parent before
// its subtest's end. The oracle's branch at every spawn had left the parent
// enabled while it waited: Run returned early, the next subtest ran beside
// the first, and the goroutine of the ended parent was resumed, a crash.
func TestSequentialSubtestsUnderBrute(t *testing.T) {
	for _, access := range []bool{false, true} {
		res := xb.Explore(t.Name(), func(t *xb.T) {
			var order []string
			x := new(int64)
			for _, name := range []string{"a", "b"} {
				t.Run(name, func(t *xb.T) {
					mu := xb.New(new(xb.Mutex))
					mu.Lock()
					xb.Write(unsafe.Pointer(x), 8, 0)
					mu.Unlock()
					order = append(order, name)
				})
				order = append(order, "ran-"+name)
			}
			if got := strings.Join(order, " "); got != "a ran-a b ran-b" {
				t.Errorf("order %q, want a ran-a b ran-b", got)
			}
		}, bruteConfig(access))
		if res.Internal != "" || !res.Complete || len(res.Findings) != 0 {
			t.Errorf("access %v: internal %q, complete %v, findings %v", access, res.Internal, res.Complete, res.Findings)
		}
	}
}

// A channel the test makes and hands to signal.Notify (oklog/run's
// SignalHandler), then a signal the process sends itself: the runtime's
// signal loop puts it in the channel behind the scheduler's back, after the
// receiver has parked. Go delivers it and the receive returns; the model of
// the channel had no sender to wake the receiver, and every schedule was a
// deadlock. Run in a process of its own: os/signal's receiver never goes
// away, and forking is unsafe after it (TestForkHazards).
func TestSignalNotifyChannelReceives(t *testing.T) {
	if os.Getenv("XBTEST_SIGNAL_CHILD") != "" {
		cfg := xb.DefaultConfig()
		cfg.Watchdog = 5 * time.Second
		res := xb.Explore(t.Name(), func(t *xb.T) {
			c := xb.MakeChan[os.Signal](1)
			xb.SignalNotify(c, syscall.SIGUSR2)
			defer signal.Stop(c)
			done := xb.MakeChan[struct{}](0)
			xb.Go(func() {
				syscall.Kill(os.Getpid(), syscall.SIGUSR2)
				xb.Close(done)
			})
			xb.Recv(done)
			if s := xb.Recv(c); s != syscall.SIGUSR2 {
				t.Errorf("received %v", s)
			}
		}, cfg)
		if res.Internal != "" || !res.Complete || len(res.Findings) != 0 {
			t.Errorf("internal %q, complete %v, findings %v", res.Internal, res.Complete, res.Findings)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalNotifyChannelReceives$", "-test.v")
	cmd.Env = append(os.Environ(), "XBTEST_SIGNAL_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
}

// A test that reads the stacks of every goroutine (go.uber.org/goleak's
// Find parses runtime.Stack(buf, true), which rewritten code calls as
// Stack): the dump shows the program's goroutines as go test would, not
// xbtest's own goroutines or frames, which goleak reported as leaks; each
// controlled goroutine under a number of its own (pooled goroutines run
// several in turn, and goleak's IgnoreCurrent remembers numbers), created
// by the function whose go statement started it; and in creation order,
// whichever pooled goroutine runs which, or a test that parses the dump
// diverges when its prefix is replayed.
func TestStackDumpShowsTheProgramsGoroutines(t *testing.T) {
	var dumps []string
	goLine := 0
	res := xb.Explore("stacks", func(t *xb.T) {
		done := xb.MakeChan[struct{}](0)
		started := xb.MakeChan[struct{}](0)
		for range 2 {
			xb.Go(func() {}) // finished, running or not started yet
		}
		_, _, line, _ := runtime.Caller(0)
		goLine = line + 2
		xb.Go(func() {
			xb.Close(started)
			xb.Recv(done)
		})
		xb.Recv(started)
		buf := make([]byte, 1<<20)
		dumps = append(dumps, string(buf[:xb.Stack(buf, true)]))
		xb.Close(done)
	}, xb.DefaultConfig())
	if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || res.Schedules < 2 {
		t.Fatalf("complete=%v schedules=%d findings=%v internal=%q", res.Complete, res.Schedules, res.Findings, res.Internal)
	}
	for _, d := range dumps {
		var ids []int
		for _, g := range strings.Split(d, "\n\n") {
			var id int
			var state string
			if _, err := fmt.Sscanf(g, "goroutine %d [%s", &id, &state); err != nil {
				t.Fatalf("%v in dump:\n%s", err, d)
			}
			ids = append(ids, id)
			if strings.Contains(g, "xbtest/scheduler.") || strings.Contains(g, "xbtest/scheduler/internal/") {
				t.Fatalf("xbtest's own frames in the dump:\n%s", d)
			}
		}
		if !slices.IsSorted(ids[1:]) || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
			t.Fatalf("goroutine numbers %v, want distinct and in creation order:\n%s", ids, d)
		}
		// The test goroutine, under go test's frames, and the blocked one,
		// created by it.
		if !strings.Contains(d, "scheduler_test.TestStackDumpShowsTheProgramsGoroutines(") ||
			!strings.Contains(d, "created by testing.(*T).Run in goroutine") ||
			!strings.Contains(d, "created by github.com/xbtest/xbtest/scheduler_test.TestStackDumpShowsTheProgramsGoroutines.func1 in goroutine") {
			t.Fatalf("the test goroutine or the blocked one is missing:\n%s", d)
		}
		// Its creator's line is the go statement's.
		if !regexp.MustCompile(fmt.Sprintf(`\.func1 in goroutine \d+\n\t%s:%d(\n|$)`, regexp.QuoteMeta(thisFile()), goLine)).MatchString(d) {
			t.Fatalf("the blocked goroutine's creator is not at line %d:\n%s", goLine, d)
		}
	}
}

// A goroutine waiting to lock a mutex it holds itself, until another
// unlocks it (a hand-over, which Go allows), shows in a dump as Go shows a
// goroutine blocked in Mutex.Lock.
func TestStackDumpShowsAMutexWaitOnItsOwnLock(t *testing.T) {
	var dumps []string
	res := xb.Explore("stacks", func(t *xb.T) {
		var m xb.Mutex
		m.Lock()
		xb.Go(func() {
			buf := make([]byte, 1<<20)
			dumps = append(dumps, string(buf[:xb.Stack(buf, true)]))
			m.Unlock()
		})
		m.Lock()
		m.Unlock()
	}, xb.DefaultConfig())
	if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || len(dumps) == 0 {
		t.Fatalf("complete=%v schedules=%d findings=%v internal=%q dumps=%d", res.Complete, res.Schedules, res.Findings, res.Internal, len(dumps))
	}
	seen := false
	for _, d := range dumps {
		seen = seen || strings.Contains(d, " [sync.Mutex.Lock]:\ngithub.com/xbtest/xbtest/scheduler_test.TestStackDumpShowsAMutexWaitOnItsOwnLock")
	}
	if !seen {
		t.Errorf("no dump shows the test goroutine waiting in Mutex.Lock:\n%s", strings.Join(dumps, "\n----\n"))
	}
}

func thisFile() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}

// A set of channels kept as a map keyed by the channels (go-memdb's
// WatchSet, which WatchCtx splits into chunks, a goroutine watching each):
// a range over it goes in the order the channels were made, the same in
// every execution, not in the order of their addresses, which change from
// one execution to the next (TestWatchCtxLeak diverged when its prefix was
// replayed: the closed channel fell in another chunk).
func TestMapOfChannelsRangesInCreationOrder(t *testing.T) {
	var bad []int
	res := xb.Explore("watchset", func(t *xb.T) {
		// Channels of two sizes, from two spans: their addresses are not
		// in the order of their making.
		set := map[chan int]int{}
		for i := range 8 {
			set[xb.MakeChan[int](i%2*256)] = i
		}
		var keys []chan int
		for k := range set {
			keys = append(keys, k)
		}
		xb.SortKeys(keys)
		var order []int
		for _, k := range keys {
			order = append(order, set[k])
		}
		if !slices.Equal(order, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			bad = order
		}
	}, xb.DefaultConfig())
	if res.Internal != "" || len(res.Findings) != 0 || bad != nil {
		t.Fatalf("order %v, want creation order; findings=%v internal=%q", bad, res.Findings, res.Internal)
	}
}

// Goroutines started inside pprof.Do (go-memdb's TestWatchCtxLeak, which
// then reads the goroutine profile until no goroutine carries the labels):
// the pooled goroutines made to run them inherited the labels and kept them
// for good, where Go's goroutines end, and the test failed.
func TestPooledGoroutinesCarryNoProfilerLabels(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSchedules = 1
	res := xb.Explore("labels", func(t *xb.T) {
		pprof.Do(context.Background(), pprof.Labels("xbtest-label", "leaked"), func(context.Context) {
			done := xb.MakeChan[struct{}](0)
			var wg xb.WaitGroup
			for range 2000 { // more than the pool holds: new pooled goroutines
				wg.Add(1)
				xb.Go(func() {
					defer wg.Done()
					xb.Recv(done)
				})
			}
			xb.Close(done)
			wg.Wait()
		})
	}, cfg)
	if res.Internal != "" || len(res.Findings) != 0 {
		t.Fatalf("findings=%v internal=%q", res.Findings, res.Internal)
	}
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "xbtest-label") {
		t.Fatalf("goroutines still labelled after the test:\n%s", b.String())
	}
}

// stackLocal writes and reads a variable on the calling goroutine's stack.
//
//go:noinline
func stackLocal() {
	var v [4]int
	xb.Write(unsafe.Pointer(&v[1]), 8, 0)
	xb.Read(unsafe.Pointer(&v[1]), 8, 0)
}

// Two goroutines running the same code, each with its own local variable
// (otter's mutate: a mutation struct captured by a closure that does not
// escape): the second may run on the pooled goroutine, and so the stack,
// the first ran on, and find its variable at the same address. That is no
// race; Go's race detector forgets a stack's history when it is
// allocated. A variable on the heap that both write still races.
func TestStackReusedByAnotherGoroutineIsNoRace(t *testing.T) {
	for _, shared := range []bool{false, true} {
		res := xb.Explore("stack", func(t *xb.T) {
			x := xb.New(new(int))
			var wg xb.WaitGroup
			wg.Add(2)
			f := func() {
				stackLocal()
				if shared {
					xb.Write(unsafe.Pointer(x), 8, 0)
				}
				wg.Done()
			}
			xb.Go(f)
			xb.Go(f)
			wg.Wait()
		}, xb.DefaultConfig())
		races := res.Count(result.Race)
		if want := map[bool]int{false: 0, true: 1}[shared]; races != want || !res.Complete {
			t.Errorf("shared=%v: %d race(s), want %d; findings %v", shared, races, want, res.Findings)
		}
	}
}

// A goroutine that waits for a channel's buffer to fill by polling
// len(ch), while others send (go-watermill's
// TestPublishSubscribe_flush_output_channel): len observes the sends, so
// it must be able to see them between two of its calls, and the loop ends
// in every schedule (it was a nontermination: len was a read inside one
// block that never ended). It is explored as the same wait on an atomic
// counter is: the same schedules.
func TestPollingLenSeesTheSends(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 100000
	byLen := xb.Explore("lenpoll", func(t *xb.T) {
		ch := xb.MakeChan[int](2)
		for i := range 2 {
			xb.Go(func() { xb.Send(ch, i) })
		}
		for xb.Len(ch) != 2 {
		}
	}, cfg)
	byAtomic := xb.Explore("atomicpoll", func(t *xb.T) {
		n := xb.New(new(int32))
		for range 2 {
			xb.Go(func() { xb.AddInt32(n, 1) })
		}
		for xb.LoadInt32(n) != 2 {
		}
	}, cfg)
	for _, res := range []*result.Result{byLen, byAtomic} {
		if res.Internal != "" || !res.Complete || len(res.Findings) != 0 || len(res.Warnings) != 0 {
			t.Fatalf("%s: complete=%v schedules=%d findings=%v warnings=%v internal=%q", res.Test, res.Complete, res.Schedules, res.Findings, res.Warnings, res.Internal)
		}
	}
	if byLen.Schedules != byAtomic.Schedules {
		t.Errorf("polling len: %d schedules, polling an atomic counter: %d", byLen.Schedules, byAtomic.Schedules)
	}
}

// A goroutine's local variable, then, once its stack grew and moved, a heap
// object another goroutine allocated where the old stack was: the runtime
// frees a stack that moved at once, with no collection in between, and a
// freed stack of 32 KiB or more goes straight back to the heap. That is no race either;
// the earlier access, to the goroutine's own stack, has no history to
// pair with. A heap variable the first writes still races.
func TestStackMovedThenReusedIsNoRace(t *testing.T) {
	for _, local := range []bool{false, true} {
		res := xb.Explore("stack-moved", func(t *xb.T) {
			heap := xb.New(new(int))
			var addr atomic.Uintptr // xbtest sees it not: no happens-before
			var wg xb.WaitGroup
			wg.Add(2)
			xb.Go(func() {
				a := uintptr(unsafe.Pointer(heap))
				if local {
					a = stackLocalAddr()
					growStack(64) // the stack moves: a is no longer on it
				} else {
					xb.Write(unsafe.Pointer(heap), 8, 0)
				}
				addr.Store(a)
				wg.Done()
			})
			xb.Go(func() {
				if a := addr.Load(); a != 0 {
					// local: the old stack's memory, as far as xbtest
					// knows the heap's now (no byte is written; a
					// uintptr, which the collector does not follow
					// into a freed stack)
					xb.Write(*(*unsafe.Pointer)(unsafe.Pointer(&a)), 8, 0)
				}
				wg.Done()
			})
			wg.Wait()
		}, xb.DefaultConfig())
		races := res.Count(result.Race)
		if want := map[bool]int{false: 1, true: 0}[local]; races != want || !res.Complete {
			t.Errorf("local=%v: %d race(s), want %d; findings %v", local, races, want, res.Findings)
		}
	}
}

// stackLocalAddr writes a variable on the calling goroutine's stack and
// returns its address.
//
//go:noinline
func stackLocalAddr() uintptr {
	var v [4]int
	xb.Write(unsafe.Pointer(&v[1]), 8, 0)
	return uintptr(unsafe.Pointer(&v[1]))
}

// growStack calls itself n deep with 4 KiB frames, so that the calling
// goroutine's stack grows (and moves) past 64 KiB.
//
//go:noinline
func growStack(n int) byte {
	var pad [4 << 10]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return growStack(n-1) + pad[n%len(pad)]
}

// Describing a test's findings is bounded in time: following a finding's
// schedule runs the test again, which for a long test (otter's
// TestCache_DeletionListenerWritesTheKey) outlasts the command's grace, and
// the killed binary lost every finding. An execution that replays the
// finding's schedule and is still running at the bound ends there: the
// race is reported, saying what describing did not do.
func TestDescribingIsBounded(t *testing.T) {
	defer driver.SetDescribeForTest(time.Millisecond)()
	res := xb.Explore("long", func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		for range 100000 { // a long run before the race
			mu.Lock()
			mu.Unlock()
		}
		x := xb.New(new(int))
		var wg xb.WaitGroup
		wg.Add(2)
		for range 2 {
			xb.Go(func() {
				xb.Write(unsafe.Pointer(x), 8, 0)
				wg.Done()
			})
		}
		wg.Wait()
	}, xb.DefaultConfig())
	if res.Internal != "" || len(res.Findings) != 1 {
		t.Fatalf("findings %v internal %q", res.Findings, res.Internal)
	}
	// A millisecond: the traced replay of the race's path, which gives
	// the schedule file, is cut too (a bound that cuts only the following
	// of the schedule keeps the file).
	f := res.Findings[0]
	if f.Kind != result.Race || !strings.Contains(f.Unreproduced, "describing the test's findings took 1ms") {
		t.Errorf("want the race, saying describing was cut; got %v, %d blocks, unreproduced %q", f, len(f.Blocks), f.Unreproduced)
	}
}
