package xbtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/result"
)

// How a package's tests are run.
//
// The rewritten package's test binary is built once (go test -c) and run
// with the tests to explore; it reports through the results file as it
// goes (result.Line: start, found, summary), which the command reads as
// it grows, so each test's findings are printed, and their schedule files
// written, as soon as the test is done. A binary that ends while tests
// remain (a test called os.Exit or crashed the binary, xbtest could not
// stop one of its goroutines, a test overran -timeout and was killed) is
// started again for the remaining tests, with those already explored
// skipped; the test it was exploring is reported with what it had found.
// So one test's trouble never stops the others, and every test the
// patterns select ends with a summary, or with the reason it has none.

// pkgRun is the outcome of running one rewritten package's tests.
type pkgRun struct {
	results     []*Test
	buildErr    string // the compiler's output if the package did not build
	interrupted bool
	elapsed     time.Duration
}

// testBinary is a package's test binary, built, and what runs its tests:
// worker processes one after another (runWorker), several at once under
// -parallel (parallel.go, team.go).
type testBinary struct {
	*runner
	bin string // its path
	pkg instrument.Package
}

// runPackage builds the package's test binary and runs its tests, calling
// done with each test's result as soon as it is known.
func (r *runner) runPackage(ctx context.Context, plan *instrument.Plan, p instrument.Package, done func(*Test)) (*pkgRun, error) {
	start := time.Now()
	res := &pkgRun{}
	bin, buildErr, err := r.buildTestBinary(ctx, plan, p)
	if err != nil {
		return nil, err
	}
	if buildErr != "" {
		res.buildErr = rewriteBroke(ctx, plan, p, r.opt.Tags, r.tmp, buildErr)
		res.elapsed = time.Since(start)
		return res, nil
	}
	want := selectTests(p.Tests, r.opt.Run)
	collect := func(t *Test) {
		res.results = append(res.results, t)
		done(t)
	}
	b := &testBinary{runner: r, bin: bin, pkg: p}
	if b.workers() > 1 {
		res.interrupted, err = b.parallelAfter(ctx, want, collect) // parallel.go
	} else {
		res.interrupted, err = b.runWorker(ctx, want, worker{shard: r.opt.Shard, run: r.opt.Run}, collect)
	}
	if err != nil {
		return nil, err
	}
	res.elapsed = time.Since(start)
	return res, nil
}

// worker is one process of a package's test binary at a time: the tests
// it runs (-run) and the part of their schedule trees it explores.
type worker struct {
	shard result.Shard
	run   string
	tag   string // tells its files apart from other workers'
	// maxSchedules is its part of -max-schedules under -parallel (0:
	// the setting's).
	maxSchedules int
	// team makes it a member of a -parallel team (parallel.go);
	// started, if set, is told each test it starts exploring.
	team    *result.Team
	started func(test string)
}

// resultsPoll is how often the command reads a test binary's results
// file, and a team looks whether a test is worth another member: a member
// joins a test only after the command has read that it started and seen
// it grow, so two polls are lost time of a second member on a tree of a
// second or so (TestMarkTypeII under -parallel 2 takes 0.7 s).
const resultsPoll = 20 * time.Millisecond

// runWorker runs the tests want of the binary as worker w,
// starting a fresh process after one that ended early, and calls done with
// each test's result. It reports whether the run was interrupted.
func (b *testBinary) runWorker(ctx context.Context, want []string, w worker, done func(*Test)) (bool, error) {
	finished := map[string]bool{}
	for try := 0; ; try++ {
		pr, err := b.runBinary(ctx, try, finished, w, func(t *Test) {
			finished[t.Name] = true
			done(t)
		})
		if err != nil {
			return false, err
		}
		if pr.interrupted {
			return true, nil
		}
		var left []string
		for _, t := range want {
			if !finished[t] {
				left = append(left, t)
			}
		}
		if len(left) == 0 {
			break
		}
		if pr.progress && try < len(want)+1 {
			b.log.Debug("starting a fresh test binary for the remaining tests", zap.String("package", b.pkg.ImportPath), zap.Strings("tests", left))
			continue
		}
		// The binary ended without exploring anything: it will not do
		// better a second time.
		why := pr.why
		if why == "" {
			why = "the test binary did not run them"
		}
		for _, t := range left {
			tr := &Test{Name: t, Problem: "not explored: " + why, Output: pr.output}
			finished[t] = true
			done(tr)
		}
		break
	}
	return false, nil
}

// buildTestBinary compiles the rewritten package's test binary. A compile
// error is returned as buildErr.
func (r *runner) buildTestBinary(ctx context.Context, plan *instrument.Plan, p instrument.Package) (bin, buildErr string, err error) {
	if bin, ok := r.cache.cachedBinary(r, p); ok {
		r.status(Status{Step: "cached build of " + p.ImportPath, Package: p.ImportPath})
		return bin, "", nil
	}
	if err := r.cache.realize(ctx, r, plan); err != nil {
		return "", "", err
	}
	bin = filepath.Join(r.tmp, "bin", sanitize(p.ImportPath)+".test")
	args := []string{"test", "-c", "-o", bin}
	args = append(args, plan.BuildArgs...)
	args = append(args, p.ImportPath)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), plan.Env...)
	// go's build directory goes into the run's directory, which the
	// command removes even when it had to kill go.
	cmd.Env = append(cmd.Env, "GOTMPDIR="+r.tmp)
	cmd.SysProcAttr = goTestProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	r.log.Debug("go test -c", zap.String("dir", cmd.Dir), zap.Strings("args", args))
	r.status(Status{Step: "building " + p.ImportPath, Package: p.ImportPath})
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	if err != nil {
		return "", strings.TrimSpace(string(out)), nil
	}
	if _, err := os.Stat(bin); err != nil {
		// A package whose test files hold no tests builds no binary.
		return "", "", fmt.Errorf("go test -c wrote no test binary: %s", strings.TrimSpace(string(out)))
	}
	r.cache.storeBinary(r, p, bin)
	return bin, "", nil
}

// rewriteBroke explains a build error of the rewritten package: if the
// package itself builds, the error is xbtest's, and each error is shown
// with what the rewrite made of its line.
func rewriteBroke(ctx context.Context, plan *instrument.Plan, p instrument.Package, tags []string, tmp, buildErr string) string {
	args := []string{"test", "-c", "-o", filepath.Join(tmp, "bin", sanitize(p.ImportPath)+".orig.test")}
	if len(tags) > 0 {
		args = append(args, "-tags="+strings.Join(tags, ","))
	}
	args = append(args, p.ImportPath)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), "GOTMPDIR="+tmp)
	if cmd.Run() != nil {
		return buildErr // the package does not build without xbtest either
	}
	var b strings.Builder
	b.WriteString(brokenBy(buildErr))
	for _, l := range strings.Split(buildErr, "\n") {
		b.WriteString(l + "\n")
		if m := compileError.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			if rw, ok := plan.RewrittenLine(m[1], n); ok {
				fmt.Fprintf(&b, "\trewritten as: %s\n", rw)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// brokenBy says which part of xbtest broke a build that works without it:
// the go command's setup of the packages (the temporary go.mod, the module
// copies), or the rewrite of their code.
func brokenBy(buildErr string) string {
	if strings.Contains(buildErr, "[setup failed]") || strings.Contains(buildErr, "missing go.sum entry") {
		return "xbtest: the package cannot be set up for building with xbtest's temporary go.mod (-modfile), although it builds without it: a bug of xbtest's module setup (please report it with this output)\n"
	}
	return "xbtest: the rewritten package does not compile, although the package itself does: a bug of xbtest's rewrite (please report it with this output)\n"
}

var compileError = regexp.MustCompile(`^\s*(\S+\.go):(\d+):(?:\d+:)? `)

// binRun is what one process of the test binary did.
type binRun struct {
	progress    bool   // it finished at least one test
	interrupted bool   // the command was interrupted meanwhile
	left        string // it stopped itself after a test: why (result.ExitTainted...)
	why         string // why it ended, if it ended abnormally
	output      string
}

// grace is how long a test may overrun -timeout (its exploration stops at
// the bound; a fork tree unwinds) before its process is killed; once it
// says it describes its findings (result.LineDescribe: a replay of each,
// which for a goroutine stopped at -max-steps is a million steps traced,
// twice), it has describeGrace from then, so that they keep their
// schedule files.
const (
	grace         = 3 * time.Second
	describeGrace = 30 * time.Second
)

// runBinary runs the test binary once; tests in skip were explored by an
// earlier process. It calls done for each test that finished, and for the
// test it was exploring when it ended, if any.
func (b *testBinary) runBinary(ctx context.Context, try int, skip map[string]bool, w worker, done func(*Test)) (*binRun, error) {
	base := filepath.Join(b.tmp, "results-"+sanitize(b.pkg.ImportPath)+w.tag+"-"+strconv.Itoa(try))
	results, prog, stopFile := base+".jsonl", base+".progress", base+".stop"
	var skipped []string
	for t := range skip {
		skipped = append(skipped, t)
	}
	slices.Sort(skipped)
	skipJSON, _ := json.Marshal(skipped)
	args := []string{"-test.timeout=0", "-test.count=1", "-test.paniconexit0", "-test.v"}
	if w.run != "" {
		args = append(args, "-test.run="+w.run)
	}
	cmd := exec.Command(b.bin, args...)
	cmd.Dir = b.pkg.Dir
	s := b.s
	if w.maxSchedules > 0 {
		s.MaxSchedules = w.maxSchedules
	}
	env, err := result.Env(result.RunConfig{Settings: s, Replay: b.replaySpec, Timelines: b.opt.Timelines, Shard: w.shard, Team: w.team}, results, b.tmp)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(append(os.Environ(), env...),
		result.EnvProgress+"="+prog,
		result.EnvStop+"="+stopFile,
		result.EnvSkip+"="+string(skipJSON),
		result.EnvParent+"="+strconv.Itoa(os.Getpid()),
	)
	cmd.SysProcAttr = goTestProcAttr()
	out := &tailBuffer{max: 256 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	b.log.Debug("test binary", zap.String("dir", cmd.Dir), zap.Strings("args", args), zap.Int("skip", len(skipped)))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the test binary: %w", err)
	}
	// Whatever happens, nothing of the process group survives.
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	stopProgress := watchProgress(prog, time.Now(), b.opt.Progress, func(s Status) {
		s.Package = b.pkg.ImportPath
		b.status(s)
	})
	defer stopProgress()
	br := &binRun{}
	rd := &lineReader{path: results}
	var cur *Test // the test under way
	var curStart, describing time.Time
	var killedFor string
	handle := func(l result.Line) {
		switch l.Event {
		case result.LineStart:
			cur, curStart, describing = &Test{Name: l.Test}, time.Now(), time.Time{}
			if w.started != nil {
				w.started(l.Test)
			}
		case result.LineDescribe:
			if cur != nil && cur.Name == l.Test {
				describing = time.Now()
			}
		case result.LineFound:
			if cur != nil && cur.Name == l.Test && l.Finding != nil {
				cur.Found = append(cur.Found, l.Finding)
			}
		case result.LineSummary:
			t := &Test{Name: l.Test, Result: l.Result, Output: testOutput(out.String(), l.Test)}
			cur = nil
			br.progress = true
			done(t)
		case result.LineElsewhere:
			br.progress = true
			done(&Test{Name: l.Test, elsewhere: true})
		case result.LineExit:
			br.left = l.Reason
		}
	}
	tick := time.NewTicker(resultsPoll)
	defer tick.Stop()
	var waitErr error
	interrupting := false
	var killAt time.Time
loop:
	for {
		select {
		case waitErr = <-exited:
			break loop
		case <-tick.C:
		case <-ctx.Done():
		}
		for _, l := range rd.read() {
			handle(l)
		}
		now := time.Now()
		switch {
		case ctx.Err() != nil && !interrupting:
			// Ask the binary to stop: the test under way reports what it
			// found; kill it if it does not within a few seconds.
			interrupting, br.interrupted = true, true
			os.WriteFile(stopFile, nil, 0o644)
			killAt = now.Add(5 * time.Second)
		case interrupting && now.After(killAt):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case !interrupting && cur != nil && b.s.Timeout > 0 && now.Sub(curStart) > b.s.Timeout+grace && killedFor == "" &&
			(describing.IsZero() || now.Sub(describing) > describeGrace):
			// The exploration did not stop at its bound: a goroutine
			// computes or waits without reaching a scheduling point.
			killedFor = cur.Name
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	for _, l := range rd.read() {
		handle(l)
	}
	br.output = out.String()
	state := cmd.ProcessState
	if cur != nil {
		// The binary ended in the middle of a test.
		cur.Output = testOutput(br.output, cur.Name)
		switch {
		case killedFor == cur.Name:
			cur.Problem = fmt.Sprintf("exploration did not stop at -timeout %v: killed %v later (it did not report within the grace period: a goroutine runs or waits without reaching a scheduling point, or its forked processes were slow to stop)", b.s.Timeout, time.Since(curStart)-b.s.Timeout)
			if !describing.IsZero() {
				cur.Problem = fmt.Sprintf("exploration stopped at -timeout %v, but describing its findings took longer than %v: killed %v after the bound", b.s.Timeout, describeGrace, time.Since(curStart)-b.s.Timeout)
			}
			cur.Bound = result.BoundTime
		case br.interrupted:
			cur.Problem = "interrupted: the test binary was killed before it reported"
			cur.Bound = result.BoundInterrupted
		default:
			cur.Problem = "the test binary " + exitDescription(state, waitErr) + " while exploring this test" + crashHint(cur.Output)
		}
		br.progress = true // a fresh process can go on after it
		done(cur)
	}
	if !br.progress && state != nil && !state.Success() {
		br.why = "the test binary " + exitDescription(state, waitErr) + crashHint(br.output)
	}
	if errors.Is(ctx.Err(), context.Canceled) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		br.interrupted = true
	}
	return br, nil
}

// exitDescription says how a process ended.
func exitDescription(st *os.ProcessState, err error) string {
	if st == nil {
		return fmt.Sprintf("failed: %v", err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by " + ws.Signal().String()
	}
	switch st.ExitCode() {
	case 0:
		return "exited with status 0"
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}

// crashHint explains a binary's end from what it printed.
func crashHint(output string) string {
	switch {
	case strings.Contains(output, "unexpected call to os.Exit"):
		return ": the test called os.Exit(0), which go test reports as a failure too"
	case strings.Contains(output, "fatal error:"):
		return ": a fatal error of the Go runtime (see its output)"
	case strings.Contains(output, "panic:"):
		return ": a panic escaped the test (see its output)"
	}
	return " (a test that calls os.Exit ends the test binary; go test reports it as a failure too)"
}

// testOutput cuts what a test printed out of the binary's -test.v output.
func testOutput(all, test string) string {
	i := strings.LastIndex(all, "=== RUN   "+test+"\n")
	if i < 0 {
		return ""
	}
	s := all[i+len("=== RUN   "+test+"\n"):]
	// Up to the next top-level test.
	for j := 0; j < len(s); {
		k := strings.Index(s[j:], "=== RUN   ")
		if k < 0 {
			break
		}
		name, _, _ := strings.Cut(s[j+k+len("=== RUN   "):], "\n")
		if !strings.Contains(name, "/") {
			s = s[:j+k]
			break
		}
		j += k + 1
	}
	return s
}

// selectTests returns the tests that go test -run re would run, as far as
// the top-level test names tell (the part of re before the first
// unbracketed slash; "" selects all).
func selectTests(tests []string, re string) []string {
	if re == "" {
		return tests
	}
	first := runpattern.Split(re)[0]
	rx, err := regexp.Compile(first)
	if err != nil {
		return nil // newRunner checked it
	}
	var out []string
	for _, t := range tests {
		if rx.MatchString(t) {
			out = append(out, t)
		}
	}
	return out
}

// lineReader reads the lines appended to a file since the last read.
type lineReader struct {
	path    string
	off     int64
	partial []byte
}

func (lr *lineReader) read() []result.Line {
	f, err := os.Open(lr.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(lr.off, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(f)
	lr.off += int64(len(b))
	b = append(lr.partial, b...)
	lr.partial = nil
	var out []result.Line
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lr.partial = append([]byte(nil), b...)
			break
		}
		var l result.Line
		if json.Unmarshal(b[:i], &l) == nil {
			out = append(out, l)
		}
		b = b[i+1:]
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max/2:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// watchProgress reports the progress the test binary writes, once a run has
// lasted a few seconds.
// status is told every change of the figures, whatever the time.
func watchProgress(path string, start time.Time, report func(string), status func(Status)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastAt, lastTest := 0, start, ""
		testStart := start
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				b, err := os.ReadFile(path)
				if err != nil {
					continue
				}
				var p result.Progress
				if json.Unmarshal(b, &p) != nil || p.Schedules == last && p.Test == lastTest {
					continue
				}
				if p.Test != lastTest {
					last, lastAt, lastTest, testStart = 0, now.Add(-time.Second), p.Test, now.Add(-time.Second)
				}
				rate := float64(p.Schedules-last) / now.Sub(lastAt).Seconds()
				if p.Schedules < last {
					rate = float64(p.Schedules) / now.Sub(lastAt).Seconds()
				}
				last, lastAt = p.Schedules, now
				if status != nil {
					status(Status{Test: p.Test, Progress: p, Rate: rate, Elapsed: now.Sub(testStart)})
				}
				if now.Sub(start) >= 3*time.Second && report != nil {
					report(fmt.Sprintf("%s: %d schedules, %.0f/s, %d finding(s) so far", p.Test, p.Schedules, rate, p.Findings))
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

var notPathChar = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func sanitize(s string) string { return notPathChar.ReplaceAllString(s, "_") }
