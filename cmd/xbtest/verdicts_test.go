package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// The cases of "no silent pass, nothing lost": each package of the module
// is one way a test can end without exploring to completion, and each must
// say so on its line, in -json, and in the exit status.
var verdictModule = map[string]string{
	"go.mod": "module example.com/verdicts\n\ngo 1.22\n",
	// A test that calls os.Exit ends the test binary; the test after it
	// must still be explored.
	"osexit/osexit_test.go": `package osexit

import (
	"os"
	"sync"
	"testing"
)

func TestExits(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
	os.Exit(3)
}

func TestAfter(t *testing.T) {
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); x++ }()
	go func() { defer wg.Done(); x++ }()
	wg.Wait()
}
`,
	// Two goroutines spin forever: each is stopped by -max-steps, which is
	// a finding, not a warning.
	"spin/spin_test.go": `package spin

import "testing"

var stop bool

func TestSpin(t *testing.T) {
	done := make(chan bool)
	for i := 0; i < 2; i++ {
		go func() {
			for !stop {
			}
			done <- true
		}()
	}
	<-done
}
`,
	// More schedules than -max-schedules: incomplete, and said so.
	"bounded/bounded_test.go": `package bounded

import (
	"sync"
	"testing"
)

func TestMany(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 3; j++ {
				mu.Lock()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
`,
	// A goroutine leaked anew in every schedule, under other names: one
	// finding, and never seen on more executions than there were.
	"leakeach/leak_test.go": `package leakeach

import (
	"sync"
	"testing"
)

func TestLeakEach(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			mu.Unlock()
			go func() {
				ch := make(chan int)
				<-ch
			}()
		}()
	}
	wg.Wait()
}
`,
	// A goroutine logs after its test completed: go test panics.
	"logafter/log_test.go": `package logafter

import "testing"

func TestLogAfter(t *testing.T) {
	done := make(chan bool, 1)
	go func() {
		<-done
		t.Logf("late")
	}()
	done <- true
}
`,
	// The test goroutine spins alone: nothing reaches a scheduling point,
	// so -timeout is enforced from outside; the next test still runs.
	"alone/alone_test.go": `package alone

import (
	"sync"
	"testing"
)

var forever = true

func TestSpinsAlone(t *testing.T) {
	for n := 0; forever; n++ {
	}
}

func TestNext(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	wg.Wait()
}
`,
	// One very long schedule: the bound stops it in the middle.
	"long/long_test.go": `package long

import "testing"

func TestLongSchedule(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		for i := 0; i < 1<<30; i++ {
			ch <- i
		}
	}()
	for i := 0; i < 1<<30; i++ {
		<-ch
	}
}
`,
	"notests/a.go": "package notests\n\nfunc A() {}\n",
}

// parseVerdicts reads -json output (every line must be an event), with
// packages named relative to the test module.
func parseVerdicts(t *testing.T, stdout string) *testkit.Events {
	t.Helper()
	return testkit.DecodeEvents(t, stdout).Relative("example.com/verdicts/")
}

// TestNoSilentPass runs the command once over every case and checks each
// test's verdict, bound and findings, and that the whole run took about
// what its bounds allow.
func TestNoSilentPass(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a module")
	}
	dir := testkit.WriteModule(t, verdictModule)
	out := t.TempDir()
	start := time.Now()
	// -timeout leaves room for a loaded machine: the spinning tests must
	// meet -max-steps first.
	status, stdout, stderr := runIn(t, dir, "-json", "-o", out, "-timeout", "4s", "-max-steps", "5000", "-max-schedules", "50",
		"./osexit", "./spin", "./bounded", "./leakeach", "./logafter", "./alone", "./notests")
	elapsed := time.Since(start)
	if status != exitFindings {
		t.Errorf("status %d, want 1", status)
	}
	ev := parseVerdicts(t, stdout)
	t.Logf("%s\n%s", stdout, stderr)
	sum := func(key string) *result.SummaryEvent {
		s := ev.Summaries[key]
		if s == nil {
			t.Fatalf("no summary for %s", key)
		}
		return s
	}
	// os.Exit: reported, and the next test explored.
	if s := sum("osexit/TestExits"); !strings.Contains(s.Error, "exited with status 3") {
		t.Errorf("TestExits: %+v", s)
	}
	if k := ev.Kinds("osexit/TestAfter"); len(k) != 1 || k[0] != "race" {
		t.Errorf("TestAfter after os.Exit: findings %v, want a race", k)
	}
	// Spinning goroutines: a nontermination finding (one: the same loop).
	if k := ev.Kinds("spin/TestSpin"); len(k) != 1 || k[0] != "nontermination" {
		t.Errorf("TestSpin: findings %v, want nontermination", k)
	}
	if s := sum("spin/TestSpin"); s.Complete || s.Bound != result.BoundSteps {
		t.Errorf("TestSpin: %+v, want incomplete, bound steps", s)
	}
	// A bound says so.
	if s := sum("bounded/TestMany"); s.Complete || s.Bound != result.BoundSchedules || s.Schedules != 50 {
		t.Errorf("TestMany: %+v, want 50 schedules, incomplete, bound schedules", s)
	}
	// One leak, seen on no more executions than there were.
	var leak *result.FindingEvent
	for _, f := range ev.Findings {
		if f.Test == "TestLeakEach" {
			if leak != nil {
				t.Errorf("a second leak finding: %+v", f)
			}
			leak = f
		}
	}
	if s := sum("leakeach/TestLeakEach"); leak == nil || leak.Count > s.Schedules+s.Aborted {
		t.Errorf("leak %+v in %+v", leak, s)
	}
	// Log after the test.
	found := false
	for _, f := range ev.Findings {
		if f.Test == "TestLogAfter" && f.Kind == result.Panic && strings.Contains(f.Message, "Log in goroutine after TestLogAfter has completed: late") {
			found = true
		}
	}
	if !found {
		t.Errorf("no panic for a Log after TestLogAfter completed: %v", ev.Kinds("logafter/TestLogAfter"))
	}
	// A test goroutine spinning alone is stopped from outside; the next
	// test is explored completely.
	if s := sum("alone/TestSpinsAlone"); s.Bound != result.BoundTime || !strings.Contains(s.Error, "did not stop at -timeout") {
		t.Errorf("TestSpinsAlone: %+v", s)
	}
	if s := sum("alone/TestNext"); !s.Complete {
		t.Errorf("TestNext after a test that was killed: %+v", s)
	}
	if ev.Result("notests") != "no test files" || ev.Result("osexit") != "FAIL" || ev.Result("bounded") != "ok" {
		t.Errorf("package results: notests %q, osexit %q, bounded %q", ev.Result("notests"), ev.Result("osexit"), ev.Result("bounded"))
	}
	// Building takes a few seconds a package; exploring is bounded.
	t.Logf("the run took %v", elapsed)

	// A long schedule is stopped in the middle, at the bound.
	status, stdout, _ = runIn(t, dir, "-json", "-o", out, "-timeout", "1s", "-max-steps", "0", "./long")
	ev = parseVerdicts(t, stdout)
	if s := sum("long/TestLongSchedule"); status != exitOK || s.Bound != result.BoundTime || s.ElapsedS > 3 || s.Schedules != 0 {
		t.Errorf("TestLongSchedule: status %d, %+v; want stopped at about 1s in its first schedule", status, s)
	}
}

func TestBadRunAndOut(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"})
	status, stdout, stderr := runIn(t, dir, "-run", "[", "./a")
	if status != exitError || !strings.Contains(stderr, "invalid -run") || stdout != "" {
		t.Errorf("-run '[': status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	status, stdout, stderr = runIn(t, dir, "-o", filepath.Join(notDir, "out"), "./a")
	if status != exitError || !strings.Contains(stderr, "cannot write schedule files") || stdout != "" {
		t.Errorf("-o under a file: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

// TestInterruptKeepsFindings interrupts the command while it explores a
// package's second test: the first test's finding is printed and its
// schedule file written, and the second test says it was interrupted.
func TestInterruptKeepsFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := buildCommand(t)
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod": "module example.com/intr\n\ngo 1.22\n",
		"p/p_test.go": `package p

import (
	"sync"
	"testing"
)

func TestA(t *testing.T) {
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); x++ }()
	go func() { defer wg.Done(); x++ }()
	wg.Wait()
}

func TestB(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 6; j++ {
				mu.Lock()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
`,
	})
	out := t.TempDir()
	cmd := exec.Command(bin, "-json", "-o", out, "./p")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until TestA is reported (its finding printed), then interrupt.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stdout.String(), `"test":"TestA"`) || !strings.Contains(stdout.String(), `"event":"summary"`) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("TestA not reported\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitError {
		t.Errorf("exit %v, want status 2", err)
	}
	ev := parseVerdicts(t, stdout.String())
	if k := ev.Kinds("example.com/intr/p/TestA"); len(k) != 1 {
		t.Errorf("TestA findings %v", k)
	}
	var replayFile string
	for _, f := range ev.Findings {
		replayFile = f.Replay
	}
	if _, err := os.Stat(filepath.Join(dir, replayFile)); replayFile == "" || err != nil {
		if _, err2 := os.Stat(replayFile); err2 != nil {
			t.Errorf("schedule file %q of TestA: %v", replayFile, err)
		}
	}
	if s := ev.Summaries["example.com/intr/p/TestB"]; s == nil || s.Bound != result.BoundInterrupted || s.Complete {
		t.Errorf("TestB: %+v, want interrupted", s)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// A test that sizes its work by GOMAXPROCS sees the same number when its
// finding is replayed as when it was found (exploration runs on one P, and
// so does a replay), and the schedule file records it.
func TestReplayKeepsGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a module")
	}
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod": "module example.com/gmp\n\ngo 1.22\n",
		"w/w_test.go": `package w

import (
	"runtime"
	"sync"
	"testing"
)

func TestWorkers(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); mu.Unlock() }()
	}
	x := 0
	wg.Add(2)
	go func() { defer wg.Done(); x++ }()
	go func() { defer wg.Done(); x++ }()
	wg.Wait()
}
`,
	})
	out := t.TempDir()
	status, stdout, stderr := runIn(t, dir, "-json", "-o", out, "./w")
	ev := parseVerdicts(t, stdout)
	if status != exitFindings || len(ev.Findings) != 1 {
		t.Fatalf("status %d, findings %+v\n%s", status, ev.Findings, stderr)
	}
	file := ev.Findings[0].Replay
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	s, err := replay.Read(file)
	if err != nil || s.Env == nil || s.Env.GOMAXPROCS != 1 {
		t.Fatalf("schedule file env %+v (%v), want GOMAXPROCS 1", s.Env, err)
	}
	status, stdout, stderr = runIn(t, dir, "-json", "-replay", file)
	if !strings.Contains(stdout, `"reproduced":true`) || status != exitFindings {
		t.Errorf("replay: status %d\n%s\n%s", status, stdout, stderr)
	}
}

// A test whose first execution did not end within its bound says that no
// schedule was checked, not how many were left.
func TestNoExecutionEnded(t *testing.T) {
	r := &result.Result{Test: "TestSpin", Depth: 2448488, Left: 2448496, Bound: result.BoundTime}
	var out strings.Builder
	o := &options{}
	o.s.Timeout = 20 * time.Second
	rp := &reporter{out: &out, errOut: io.Discard, o: o}
	rp.testDone(&xbtest.Package{ImportPath: "example.com/p"}, &xbtest.Test{Name: "TestSpin", Result: r})
	want := "incomplete: stopped at -timeout 20s before any execution ended: no schedule was checked (the first had run 2448488 blocks)"
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "schedules left") {
		t.Errorf("got %q, want it to say %q", out.String(), want)
	}
	r.Schedules = 1
	out.Reset()
	rp.testDone(&xbtest.Package{ImportPath: "example.com/p"}, &xbtest.Test{Name: "TestSpin", Result: r})
	if !strings.Contains(out.String(), "with at least 2448496 schedules left") {
		t.Errorf("after one schedule: %q", out.String())
	}
}
