package scheduler

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/eraser"
)

// The protocol between the xbtest command and a rewritten test binary.
//
// The command runs `go test` on the rewritten package with two environment
// variables: XBTEST_CONFIG holds the exploration settings as JSON
// (RunConfig), XBTEST_RESULTS names a file to which every explored test
// appends one JSON line (Report). Without XBTEST_CONFIG the defaults apply
// and results are only reported through go test.

// RunConfig is the JSON form of the settings the command passes.
type RunConfig struct {
	Algorithm    string   `json:"algorithm"`
	SyncDeps     *bool    `json:"sync_deps,omitempty"`
	Race         string   `json:"race,omitempty"` // hb (default; "hybrid" is read as hb), lockset, off
	MaxSchedules int      `json:"max_schedules,omitempty"`
	MaxSteps     *int64   `json:"max_steps,omitempty"` // nil: the default; 0: no bound
	TimeoutSec   float64  `json:"timeout_s,omitempty"`
	Stop         bool     `json:"stop,omitempty"`
	WatchdogSec  *float64 `json:"watchdog_s,omitempty"`  // nil: the default; 0: none
	Memory       string   `json:"memory,omitempty"`      // sc (default), tso, pso
	Granularity  string   `json:"granularity,omitempty"` // sync (default), access
	Replay       string   `json:"replay,omitempty"`      // a ReplaySpec file: follow it instead of exploring
	Checkpoint   string   `json:"checkpoint,omitempty"`  // rerun, fork, auto (default)
}

// ReplaySpec is the schedule a test binary follows under xbtest -replay.
type ReplaySpec struct {
	Blocks []Block `json:"blocks"`
	Want   Want    `json:"want"`
}

// Config converts the JSON settings.
func (rc RunConfig) Config() (Config, error) {
	cfg := DefaultConfig()
	if rc.Algorithm != "" {
		a, err := ParseAlgorithm(rc.Algorithm)
		if err != nil {
			return cfg, err
		}
		cfg.Algorithm = a
	}
	if rc.SyncDeps != nil {
		cfg.SyncDeps = *rc.SyncDeps
	}
	if rc.Race != "" {
		m, err := eraser.ParseMode(rc.Race)
		if err != nil {
			return cfg, err
		}
		cfg.Race = m
	}
	cfg.MaxSchedules = rc.MaxSchedules
	if rc.MaxSteps != nil {
		cfg.MaxSteps = *rc.MaxSteps
	}
	cfg.Timeout = time.Duration(rc.TimeoutSec * float64(time.Second))
	cfg.Stop = rc.Stop
	if rc.WatchdogSec != nil {
		cfg.Watchdog = time.Duration(*rc.WatchdogSec * float64(time.Second))
	}
	if rc.Memory != "" {
		m, err := ParseMemory(rc.Memory)
		if err != nil {
			return cfg, err
		}
		cfg.Memory = m
	}
	switch rc.Granularity {
	case "", "sync":
	case "access":
		cfg.AccessGranularity = true
	default:
		return cfg, fmt.Errorf("unknown granularity %q (want sync or access)", rc.Granularity)
	}
	if rc.Checkpoint != "" {
		b, err := checkpoint.Parse(rc.Checkpoint)
		if err != nil {
			return cfg, err
		}
		cfg.Backer = b
	}
	if f, ok := cfg.Backer.(*checkpoint.Fork); ok && cfg.Watchdog > 0 {
		// A forked child's own watchdog reports a goroutine stuck in
		// uncontrolled code; the parent's catches a child whose runtime
		// is wedged, later.
		f.SetWatchdog(2*cfg.Watchdog + 2*time.Second)
	}
	return cfg, nil
}

// Report is the line a test binary writes for each explored test.
type Report struct {
	*Result
	Algorithm string  `json:"algorithm"`
	ElapsedS  float64 `json:"elapsed_s"`
}

var resultsMu sync.Mutex

var watchParent sync.Once

// startParentWatch makes the test binary exit when the xbtest command that
// started it is gone (killed, crashed): no process outlives the command.
// The binary's parent is go test, so the command passes its own pid.
func startParentWatch() {
	pid, err := strconv.Atoi(os.Getenv("XBTEST_PARENT"))
	if err != nil || pid <= 1 {
		return
	}
	go func() {
		for range time.Tick(200 * time.Millisecond) {
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				os.Exit(3)
			}
		}
	}()
}

// RunTest explores a rewritten test body: the rewriter turns
// `func TestX(t *testing.T) { body }` into
// `func TestX(t *testing.T) { scheduler.RunTest(t, func(t *scheduler.T) { body }) }`.
// go test sees the test fail if exploration found anything.
func RunTest(t *testing.T, body func(*T)) {
	t.Helper()
	watchParent.Do(startParentWatch)
	var rc RunConfig
	if s := os.Getenv("XBTEST_CONFIG"); s != "" {
		if err := json.Unmarshal([]byte(s), &rc); err != nil {
			t.Fatalf("xbtest: bad XBTEST_CONFIG: %v", err)
		}
	}
	cfg, err := rc.Config()
	if err != nil {
		t.Fatalf("xbtest: %v", err)
	}
	if path := os.Getenv("XBTEST_PROGRESS"); path != "" {
		name := t.Name()
		cfg.Progress = func(schedules, findings int) {
			line, _ := json.Marshal(map[string]any{"test": name, "schedules": schedules, "findings": findings})
			os.WriteFile(path, line, 0o644)
		}
	}
	var res *Result
	if rc.Replay != "" {
		var spec ReplaySpec
		b, err := os.ReadFile(rc.Replay)
		if err == nil {
			err = json.Unmarshal(b, &spec)
		}
		if err != nil {
			t.Fatalf("xbtest: reading the schedule to replay: %v", err)
		}
		res = Replay(t.Name(), body, cfg, spec.Blocks, spec.Want)
	} else {
		res = Explore(t.Name(), body, cfg)
	}
	if path := os.Getenv("XBTEST_RESULTS"); path != "" {
		line, err := json.Marshal(Report{Result: res, Algorithm: res.Algorithm.String(), ElapsedS: res.Elapsed.Seconds()})
		if err == nil {
			resultsMu.Lock()
			f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if ferr == nil {
				f.Write(append(line, '\n'))
				f.Close()
			}
			resultsMu.Unlock()
			if ferr != nil {
				t.Errorf("xbtest: writing results: %v", ferr)
			}
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
