package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/internal/claims"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
	"github.com/xbtest/xbtest/settings"
)

// The protocol between the xbtest command and a rewritten test binary.
//
// The command builds the rewritten package's test binary and runs it with
// environment variables: XBTEST_CONFIG holds the exploration settings as
// JSON (result.RunConfig); XBTEST_RESULTS names a file to which the binary appends
// JSON lines (result.Line) as it goes: "start" when it begins exploring a
// test, "found" for each distinct finding the moment exploration first sees
// it, "summary" (the result.Result) when the test is done, "exit" when it
// stops itself after a test, "elsewhere" when a lane of a -parallel team
// leaves a test to the lane that claimed it first (result.Team);
// XBTEST_PROGRESS names a file it rewrites about once a second
// (result.Progress); the command reads the results file as it grows, so
// that a crash, a kill or an interrupt loses nothing already found.
// XBTEST_SKIP lists tests an earlier process of the same run already
// explored (the command starts a fresh process for the remaining tests
// after one that crashed or that xbtest could not stop); XBTEST_STOP names
// a file whose appearance asks the binary to stop (an interrupt): the test
// under way stops exploring and reports, and the binary exits. Without
// XBTEST_CONFIG the defaults apply and results are only reported through go
// test.

// readRunConfig decodes XBTEST_CONFIG; fields it does not have keep their
// defaults.
func readRunConfig(s string) (result.RunConfig, error) {
	rc := result.RunConfig{Settings: settings.Default()}
	if s != "" {
		if err := json.Unmarshal([]byte(s), &rc); err != nil {
			return rc, err
		}
	}
	return rc, rc.Normalize()
}

// configOf is the scheduler's configuration for rc.
func configOf(rc result.RunConfig) engine.Config {
	cfg := engine.Config{Settings: rc.Settings, Backer: engine.BackerFor(rc.Checkpoint), Timelines: rc.Timelines, Shard: rc.Shard, Team: rc.Team}
	if f, ok := cfg.Backer.(*checkpoint.Fork); ok && cfg.Watchdog > 0 {
		// A forked child's own watchdog reports a goroutine stuck in
		// uncontrolled code; the parent's catches a child whose runtime
		// is wedged, later.
		f.SetWatchdog(2*cfg.Watchdog + 2*time.Second)
	}
	return cfg
}

var resultsMu sync.Mutex

// writeLine appends l to the results file. Forked processes append to the
// same file: each line is one write of an O_APPEND file.
func writeLine(l result.Line) error {
	path := os.Getenv(result.EnvResults)
	if path == "" {
		return nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	resultsMu.Lock()
	defer resultsMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

var watchParent sync.Once

// interrupted is set when the command asked the binary to stop.
var interrupted atomic.Bool

// startParentWatch makes the test binary exit when the xbtest command that
// started it is gone (killed, crashed): no process outlives the command.
// The command passes its own pid. It also watches for the command's
// request to stop (XBTEST_STOP): a file rather than a signal, because a
// process that receives signals (signal.Notify) cannot be forked safely.
func startParentWatch() {
	pid, err := strconv.Atoi(os.Getenv(result.EnvParent))
	stop := os.Getenv(result.EnvStop)
	if (err != nil || pid <= 1) && stop == "" {
		return
	}
	go func() {
		engine.MarkInternal() // hidden from the program's runtime.Stack
		for range time.Tick(100 * time.Millisecond) {
			if pid > 1 && syscall.Kill(pid, 0) == syscall.ESRCH {
				os.Exit(3)
			}
			if stop != "" && !interrupted.Load() {
				if _, err := os.Stat(stop); err == nil {
					interrupted.Store(true)
					checkpoint.RequestStop(checkpoint.StopInterrupt)
				}
			}
		}
	}()
}

// subprocess reports whether this test binary was started by a test (a
// test that runs its own binary to watch it crash, as go test would run
// it), not by the xbtest command: it inherited the command's environment.
// Such a process runs its tests once, natively, as go test does.
func subprocess() bool {
	p := os.Getenv(result.EnvParent)
	return p != "" && p != strconv.Itoa(os.Getppid())
}

// skipped reports whether an earlier process of this run explored the test.
func skippedEarlier(name string) bool {
	s := os.Getenv(result.EnvSkip)
	if s == "" {
		return false
	}
	var names []string
	if json.Unmarshal([]byte(s), &names) != nil {
		return false
	}
	return slices.Contains(names, name)
}

// RunTest explores a rewritten test body: the rewriter turns
// `func TestX(t *testing.T) { body }` into
// `func TestX(t *testing.T) { scheduler.RunTest(t, func(t *scheduler.T) { body }) }`.
// go test sees the test fail if exploration found anything.
func RunTest(t *testing.T, body func(*testingobj.T)) {
	t.Helper()
	watchParent.Do(startParentWatch)
	if skippedEarlier(t.Name()) {
		t.SkipNow()
	}
	if subprocess() {
		testingobj.RunNative(t, body)
		return
	}
	rc, err := readRunConfig(os.Getenv(result.EnvConfig))
	if err != nil {
		t.Fatalf("xbtest: bad XBTEST_CONFIG: %v", err)
	}
	cfg := configOf(rc)
	if tm := rc.Team; tm != nil && tm.Lane && rc.Replay == "" {
		// One of the processes that run the package's tests side by
		// side: the first to claim a test explores it. A claim that
		// fails to be made is this lane's: the command keeps the first
		// lane's report of a test two lanes explored.
		if mine, err := claims.ClaimTest(tm.Dir, t.Name(), tm.Member); err == nil && !mine {
			if err := writeLine(result.Line{Event: result.LineElsewhere, Test: t.Name()}); err != nil {
				t.Fatalf("xbtest: writing results: %v", err)
			}
			t.SkipNow()
		}
	}
	if path := os.Getenv(result.EnvProgress); path != "" {
		name := t.Name()
		cfg.Progress = func(p result.Progress) {
			p.Test = name
			line, _ := json.Marshal(p)
			os.WriteFile(path, line, 0o644)
		}
	}
	name := t.Name()
	if err := writeLine(result.Line{Event: result.LineStart, Test: name}); err != nil {
		t.Fatalf("xbtest: writing results: %v", err)
	}
	cfg.Found = func(f *result.Finding) { writeLine(result.Line{Event: result.LineFound, Test: name, Finding: f}) }
	cfg.Describing = func() { writeLine(result.Line{Event: result.LineDescribe, Test: name}) }
	cryptoFixed := fixCryptoRand(t)
	var res *result.Result
	if err := engine.CheckRewrite(rc.Memory); err != nil {
		// Said as the test's result, so that the command reports it on
		// the test's line rather than as a binary that ended early.
		res = &result.Result{Test: name, Semantics: rc.Semantics, Internal: err.Error()}
	} else if rc.Replay != "" {
		var spec result.ReplaySpec
		b, err := os.ReadFile(rc.Replay)
		if err == nil {
			err = json.Unmarshal(b, &spec)
		}
		if err != nil {
			t.Fatalf("xbtest: reading the schedule to replay: %v", err)
		}
		// Exploration runs the body on one P (see checkpoint): so does
		// its replay.
		procs := runtime.GOMAXPROCS(1)
		res = Replay(name, body, cfg, spec.Blocks, spec.Want)
		runtime.GOMAXPROCS(procs)
	} else {
		res = Explore(name, body, cfg)
	}
	res.GOMAXPROCS = 1
	if !cryptoFixed {
		res.Notes = append(res.Notes, "crypto/rand is not fixed in this build (testing/cryptotest is unavailable): a program that draws from it may not replay")
	}
	if err := writeLine(result.Line{Event: result.LineSummary, Test: name, Result: res}); err != nil {
		t.Errorf("xbtest: writing results: %v", err)
	}
	if os.Getenv(result.EnvResults) != "" {
		why := ""
		switch {
		case engine.Tainted() != "":
			why = result.ExitTainted
		case interrupted.Load():
			why = result.ExitInterrupted
		}
		if why != "" {
			writeLine(result.Line{Event: result.LineExit, Test: name, Reason: why})
			os.Exit(3)
		}
	}
	switch {
	case res.Internal != "":
		t.Errorf("xbtest: %s", res.Internal)
	case res.Skipped && len(res.Findings) == 0:
		t.Skip("skipped under xbtest")
	case len(res.Findings) > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "xbtest: %d finding(s) in %d schedule(s)", len(res.Findings), res.Schedules)
		for _, f := range res.Findings {
			fmt.Fprintf(&b, "\n%s", f)
		}
		t.Error(b.String())
	}
}
