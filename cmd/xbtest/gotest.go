package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/scheduler"
)

// pkgRun is the outcome of running one rewritten package's tests.
type pkgRun struct {
	reports  []scheduler.Report // one per explored test, from the results file
	buildErr string             // the compiler's output if the package did not build
	failed   []string           // tests go test saw fail without an xbtest report (a crash)
	output   map[string]string  // go test output per test
	elapsed  time.Duration
}

// testEvent is a line of `go test -json`.
type testEvent struct {
	Action  string
	Test    string
	Output  string
	Package string
}

// runPackage runs `go test` on one rewritten package with the exploration
// settings and collects what the test binary reports. go test and the test
// binary run in their own process group, which is killed if ctx ends.
func runPackage(ctx context.Context, plan *instrument.Plan, p instrument.Package, o *options, tmp string, log *zap.Logger, progress func(string)) (*pkgRun, error) {
	results := filepath.Join(tmp, "results-"+strconv.Itoa(os.Getpid())+"-"+sanitize(p.ImportPath)+".jsonl")
	prog := results + ".progress"
	cfg, _ := json.Marshal(o.runConfig())
	args := []string{"test", "-json", "-count=1", "-timeout=0", "-p=1"}
	if o.run != "" {
		args = append(args, "-run="+o.run)
	}
	args = append(args, plan.BuildArgs...)
	args = append(args, p.ImportPath)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), plan.Env...)
	cmd.Env = append(cmd.Env,
		"XBTEST=1",
		"XBTEST_CONFIG="+string(cfg),
		"XBTEST_RESULTS="+results,
		"XBTEST_PROGRESS="+prog,
		"XBTEST_PARENT="+strconv.Itoa(os.Getpid()),
		// go's build directory goes into the run's directory, which the
		// command removes even when it had to kill go test.
		"GOTMPDIR="+tmp,
	)
	cmd.SysProcAttr = goTestProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	log.Debug("go test", zap.String("dir", cmd.Dir), zap.Strings("args", args))
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting go test: %w", err)
	}
	// Whatever happens, nothing of the process group survives.
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	stopProgress := watchProgress(prog, start, progress)
	res := &pkgRun{output: map[string]string{}}
	var buildOut strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			buildOut.WriteString(sc.Text() + "\n")
			continue
		}
		switch ev.Action {
		case "build-output":
			buildOut.WriteString(ev.Output)
		case "output":
			res.output[ev.Test] += ev.Output
		case "fail":
			if ev.Test != "" {
				res.failed = append(res.failed, ev.Test)
			}
		}
	}
	err = cmd.Wait()
	stopProgress()
	res.elapsed = time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res.reports, _ = readReports(results)
	if len(res.reports) == 0 && err != nil {
		msg := buildOut.String() + stderr.String()
		if msg == "" {
			msg = res.output[""]
		}
		if strings.Contains(msg, "[setup failed]") || strings.Contains(msg, "build failed") || buildOut.Len() > 0 || stderr.Len() > 0 {
			res.buildErr = strings.TrimSpace(msg)
			return res, nil
		}
	}
	log.Debug("go test done", zap.String("package", p.ImportPath), zap.Duration("elapsed", res.elapsed), zap.Int("tests", len(res.reports)))
	return res, nil
}

func readReports(path string) ([]scheduler.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []scheduler.Report
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var r scheduler.Report
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// watchProgress reports the progress the test binary writes, once a run has
// lasted a few seconds.
func watchProgress(path string, start time.Time, report func(string)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastAt := 0, start
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				if now.Sub(start) < 3*time.Second || report == nil {
					continue
				}
				b, err := os.ReadFile(path)
				if err != nil {
					continue
				}
				var p struct {
					Test      string
					Schedules int
					Findings  int
				}
				if json.Unmarshal(b, &p) != nil || p.Schedules == last {
					continue
				}
				rate := float64(p.Schedules-last) / now.Sub(lastAt).Seconds()
				if p.Schedules < last {
					rate = float64(p.Schedules) / now.Sub(lastAt).Seconds()
				}
				last, lastAt = p.Schedules, now
				report(fmt.Sprintf("%s: %d schedules, %.0f/s, %d finding(s) so far", p.Test, p.Schedules, rate, p.Findings))
			}
		}
	}()
	return func() { close(done); <-finished }
}

var notPathChar = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func sanitize(s string) string { return notPathChar.ReplaceAllString(s, "_") }
