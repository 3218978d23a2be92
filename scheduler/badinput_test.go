package scheduler_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// A goroutine that loops forever through scheduling points is stopped by
// the step bound (the thesis's terminateAfter) and reported, as a finding
// when nothing else could have run meanwhile; exploration goes on and says
// it is incomplete.
func TestStepBoundStopsANonTerminatingGoroutine(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 500
	res := xb.Explore("spin", func(t *xb.T) {
		flag := xb.New(new(xb.Bool))
		xb.Go(func() {
			for !flag.Load() { // nobody ever sets it
				xb.Step()
			}
		})
	}, cfg)
	if res.Complete || res.Bound != "steps" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "goroutine T0.1 was stopped after 500 scheduling steps") {
		t.Fatalf("complete=%v bound=%q warnings=%q", res.Complete, res.Bound, res.Warnings)
	}
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.NonTermination || !strings.Contains(res.Findings[0].Message, "goroutine T0.1 exceeded 500 scheduling steps") || res.Internal != "" {
		t.Errorf("findings %v internal %q", res.Findings, res.Internal)
	}
}

// A goroutine that goes past the step bound while it still writes shared
// memory may be a long loop that ends (xsync's tests drain 100,000 items
// from a queue after the producers are done): a bound, not a finding.
func TestStepBoundOnALoopThatWrites(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 500
	res := xb.Explore("drain", func(t *xb.T) {
		n := xb.New(new(int))
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			for i := 0; i < 10000; i++ {
				wr(n, rd(n)+1)
			}
		})
		sp.wg.Wait()
	}, cfg)
	if res.Complete || res.Bound != "steps" || len(res.Findings) != 0 || res.Internal != "" {
		t.Errorf("complete=%v bound=%q findings=%v internal=%q", res.Complete, res.Bound, res.Findings, res.Internal)
	}
}

// Virtual time does not pass while a goroutine the step bound stopped was
// still writing shared memory: it is a long loop that Go would go on
// running, not a goroutine waiting (otter's completes: 5000 writes in a
// goroutine, the test waiting for them with a 30-second time.After). The
// path ends there with no verdict; a time-out would be no real
// execution's, since time passes only when no goroutine can run. Without
// the writing loop the time-out does fire.
func TestStepBoundOnALoopThatWritesStopsTime(t *testing.T) {
	for _, loop := range []bool{true, false} {
		cfg := xb.DefaultConfig()
		cfg.MaxSteps = 500
		res := xb.Explore("timeout", func(t *xb.T) {
			n := xb.New(new(int))
			done := xb.MakeChan[struct{}](0)
			xb.Go(func() {
				for i := 0; loop && i < 10000; i++ {
					wr(n, rd(n)+1)
				}
				if loop {
					xb.Close(done)
				}
			})
			if i, _ := xb.Select(false, xb.RecvCase(done, nil), xb.RecvCase(xb.TimeAfter(30*time.Second), nil)); i == 1 {
				t.Error("timed out")
			}
		}, cfg)
		switch {
		case res.Internal != "":
			t.Fatalf("loop=%v: internal %q", loop, res.Internal)
		case loop && (res.Complete || res.Bound != "steps" || len(res.Findings) != 0):
			t.Errorf("loop=%v: complete=%v bound=%q findings=%v", loop, res.Complete, res.Bound, res.Findings)
		case !loop && (len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion):
			t.Errorf("loop=%v: findings=%v, want the time-out", loop, res.Findings)
		}
	}
}

func TestScheduleAndTimeBounds(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.MaxSchedules = 5
	res := xb.Explore("bounded", perfPlain(3, 3), cfg)
	if res.Complete || res.Bound != "schedules" || res.Schedules != 5 {
		t.Errorf("max-schedules: complete=%v bound=%q schedules=%d", res.Complete, res.Bound, res.Schedules)
	}
	cfg = xb.DefaultConfig()
	cfg.Timeout = time.Millisecond
	res = xb.Explore("timed", perfJava(4, 10), cfg)
	if res.Complete || res.Bound != "time" || res.Schedules >= 1885 {
		t.Errorf("timeout: complete=%v bound=%q schedules=%d", res.Complete, res.Bound, res.Schedules)
	}
}

func TestStopAtFirstFinding(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.Stop = true
	res := xb.Explore("stop", splitSync, cfg)
	if len(res.Findings) != 1 || res.Complete || res.Bound != "stop" {
		t.Errorf("findings %d complete=%v bound=%q", len(res.Findings), res.Complete, res.Bound)
	}
}

// badInput are programs that leave a goroutine xbtest cannot stop. Each runs
// in a child process (the parent's process would stay tainted), which must
// end promptly with a clear report.
var badInput = map[string]struct {
	body func(*xb.T)
	want string
}{
	"blocks-in-uncontrolled-code": {func(t *xb.T) {
		xb.Go(func() {})
		<-make(chan int) // a real channel: unmodified code blocks for real
	}, "goroutine T0 has not reached a scheduling point within 300ms: it is blocked or spinning in code xbtest does not control"},
	"sleeps-in-uncontrolled-code": {func(t *xb.T) {
		xb.Go(func() {})
		time.Sleep(time.Hour) // the real clock: code xbtest does not rewrite
	}, "goroutine T0 has not reached a scheduling point within 300ms: it is blocked or spinning in code xbtest does not control"},
	"spins-without-scheduling-points": {func(t *xb.T) {
		xb.Go(func() {})
		//lint:ignore SA5002 the bad input under test: a loop with no scheduling point
		for {
		}
	}, "goroutine T0 has not reached a scheduling point"},
	"hook-on-uncontrolled-goroutine": {func(t *xb.T) {
		var mu xb.Mutex
		done := make(chan bool)
		go func() { // a plain go statement: this goroutine is not controlled
			mu.Lock()
			done <- true
		}()
		<-done
	}, "instrumented code was called from a goroutine xbtest does not control"},
}

func TestBadInputEndsWithAReport(t *testing.T) {
	for name, c := range badInput {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBadInputChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "XBTEST_BAD_INPUT="+name)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the child hung: %s", out)
			}
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var res result.Result
			line := out[strings.Index(string(out), "RESULT ")+len("RESULT "):]
			line = line[:strings.IndexByte(string(line), '\n')]
			if err := json.Unmarshal(line, &res); err != nil {
				t.Fatalf("child output: %v\n%s", err, out)
			}
			if !strings.Contains(res.Internal, c.want) || res.Complete {
				t.Errorf("report %q (complete=%v), want it to say %q", res.Internal, res.Complete, c.want)
			}
			if len(res.Findings) != 0 {
				t.Errorf("findings %v", res.Findings)
			}
			t.Logf("child finished in %v", time.Since(start))
		})
	}
}

// TestBadInputChild is the child process of TestBadInputEndsWithAReport.
func TestBadInputChild(t *testing.T) {
	name := os.Getenv("XBTEST_BAD_INPUT")
	if name == "" {
		t.Skip("child process of TestBadInputEndsWithAReport")
	}
	cfg := xb.DefaultConfig()
	cfg.Watchdog = 300 * time.Millisecond
	res := xb.Explore(name, badInput[name].body, cfg)
	b, _ := json.Marshal(res)
	os.Stdout.Write(append(append([]byte("RESULT "), b...), '\n'))
	// A second exploration in the same process refuses to run.
	res = xb.Explore("after", func(*xb.T) {}, cfg)
	if !strings.Contains(res.Internal, "not explored") {
		t.Errorf("a tainted process explored again: %+v", res)
	}
}

// A long sequential computation is not mistaken for a goroutine stuck in
// code xbtest does not control: with one goroutine running, the watchdog
// waits.
func TestWatchdogLetsALongComputationRun(t *testing.T) {
	for _, locked := range []bool{false, true} {
		cfg := xb.DefaultConfig()
		cfg.Watchdog = 200 * time.Millisecond
		res := xb.Explore("long", func(t *xb.T) {
			if locked { // the stack trace says "[running, locked to thread]"
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			for start := time.Now(); time.Since(start) < 700*time.Millisecond; {
				xb.Step()
			}
			xb.Go(func() {})
		}, cfg)
		if res.Internal != "" || !res.Complete {
			t.Fatalf("locked to its thread %v: internal %q complete %v", locked, res.Internal, res.Complete)
		}
	}
}
