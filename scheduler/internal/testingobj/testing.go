package testingobj

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/chanobj"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// T is the test handle a test body receives in place of *testing.T: one T
// serves one execution of the body. Its methods behave as in go test: Error
// marks the test failed and goes on, FailNow and Fatal end the calling
// goroutine with runtime.Goexit, Skip ends the test as skipped, Run runs a
// subtest on a goroutine of its own and waits for it.
type T struct {
	x        engine.Exec // the execution it serves; the zero Exec under RunNative
	name     string
	parent   *T
	failed   bool
	skipped  bool
	failNow  bool
	finished bool // its function has returned: cleanups are running
	synctest bool // the T of synctest.Test's function (synctest.go)
	done     bool // and they have run: a Log or Fail now panics, as in go test
	helpers  map[string]bool
	cleanups []func()
	logs     []string
	ctx      context.Context
	cancel   context.CancelFunc
	tempDirs []string
	deadline time.Time

	// Subtests (subtest.go).
	release      func() // ends the parent's wait in Run early (Parallel)
	parallel     bool   // Parallel was called
	setenv       bool   // Setenv or Chdir was called: Parallel panics
	chdir        bool
	barrier      chan struct{} // closed when the function returned: its parallel subtests go on
	parallelSubs []*T
	ended        chan struct{} // a parallel subtest's end, which its parent waits for
	subNames     map[string]int
}

// TB is the interface common to T and the handles of rewritten helpers; it
// has the methods of testing.TB (which cannot be implemented outside the
// testing package).
type TB interface {
	ArtifactDir() string
	Attr(key, value string)
	Cleanup(func())
	Error(args ...any)
	Errorf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Setenv(key, value string)
	Chdir(dir string)
	Skip(args ...any)
	SkipNow()
	Skipf(format string, args ...any)
	Skipped() bool
	TempDir() string
	Context() context.Context
	Output() io.Writer
}

var _ TB = (*T)(nil)

func newT(x engine.Exec, name string, parent *T) *T {
	return &T{x: x, name: name, parent: parent}
}

// Name returns the name of the test.
func (t *T) Name() string { return t.name }

// Fail marks the test as failed and continues.
func (t *T) Fail() {
	if t.done {
		panic("Fail in goroutine after " + t.name + " has completed")
	}
	for p := t; p != nil; p = p.parent {
		p.failed = true
	}
	if t.x != (engine.Exec{}) {
		t.x.TestFailed()
	}
}

// Failed reports whether the test has failed.
func (t *T) Failed() bool { return t.failed }

// FailNow marks the test failed and stops the calling goroutine.
func (t *T) FailNow() {
	t.Fail()
	t.failNow = true
	engine.Goexit()
}

// Error is Log followed by Fail; xbtest records it as an assertion finding.
func (t *T) Error(args ...any) { t.report(fmt.Sprintln(args...)) }

// Errorf is Logf followed by Fail.
func (t *T) Errorf(format string, args ...any) { t.report(fmt.Sprintf(format, args...)) }

// Fatal is Log followed by FailNow.
func (t *T) Fatal(args ...any) { t.report(fmt.Sprintln(args...)); t.FailNow() }

// Fatalf is Logf followed by FailNow.
func (t *T) Fatalf(format string, args ...any) { t.report(fmt.Sprintf(format, args...)); t.FailNow() }

func (t *T) report(msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	pos := t.callerPos()
	t.log(pos+": "+msg, msg)
	t.Fail()
	th := engine.Enter()
	if th == nil || th.Exec() != t.x {
		return
	}
	th.Event()
	f := &result.Finding{Kind: result.Assertion, Message: msg, Pos: pos,
		Goroutines: []result.Goroutine{{ID: th.ID(), State: "running", Pos: pos}}}
	th.AddFinding(f, "assertion|"+pos)
}

// Log records its arguments in the test's log.
func (t *T) Log(args ...any) {
	msg := strings.TrimSuffix(fmt.Sprintln(args...), "\n")
	t.log(t.callerPos()+": "+msg, msg)
}

// Logf records a formatted line in the test's log.
func (t *T) Logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.log(t.callerPos()+": "+msg, msg)
}

// log appends a line to the log. As in go test, a test that has completed
// passes it to its closest running ancestor, and without one it panics:
// a goroutine that outlived its test logs.
func (t *T) log(line, msg string) {
	if t.synctest && t.parent != nil && !t.parent.done {
		t.parent.log(line, msg) // synctest.Test's T logs as its caller's
		return
	}
	if !t.done {
		t.logs = append(t.logs, line)
		return
	}
	for p := t.parent; p != nil; p = p.parent {
		if !p.done {
			p.logs = append(p.logs, line)
			return
		}
	}
	panic("Log in goroutine after " + t.name + " has completed: " + msg)
}

// Skip is Log followed by SkipNow.
func (t *T) Skip(args ...any) { t.Log(args...); t.SkipNow() }

// Skipf is Logf followed by SkipNow.
func (t *T) Skipf(format string, args ...any) { t.Logf(format, args...); t.SkipNow() }

// SkipNow marks the test skipped and stops the calling goroutine.
func (t *T) SkipNow() {
	t.skipped = true
	if t.x != (engine.Exec{}) && t.parent == nil {
		t.x.TestSkipped()
	}
	t.failNow = true
	engine.Goexit()
}

// Skipped reports whether the test was skipped.
func (t *T) Skipped() bool { return t.skipped }

var helperMu sync.Mutex

// Helper marks the calling function as a test helper: positions reported
// for failures skip it.
func (t *T) Helper() {
	var pc [1]uintptr
	if runtime.Callers(2, pc[:]) == 0 {
		return
	}
	fr, _ := runtime.CallersFrames(pc[:]).Next()
	helperMu.Lock()
	if t.helpers == nil {
		t.helpers = map[string]bool{}
	}
	t.helpers[fr.Function] = true
	helperMu.Unlock()
}

// callerPos is file:line of the caller of a reporting method, skipping
// helpers and xbtest's own frames.
func (t *T) callerPos() string {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		helper := false
		for p := t; p != nil; p = p.parent {
			helper = helper || p.helpers[f.Function]
		}
		if !helper && f.Function != "" && !srcpos.OwnFrame(f.Function) && !strings.HasPrefix(f.Function, "runtime.") {
			return srcpos.Short(f.File, f.Line)
		}
		if !more {
			return "?"
		}
	}
}

// Cleanup registers f to run when the test and its subtests finish.
func (t *T) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *T) runCleanups() {
	t.finished = true
	for len(t.cleanups) > 0 {
		f := t.cleanups[len(t.cleanups)-1]
		t.cleanups = t.cleanups[:len(t.cleanups)-1]
		f()
	}
	if t.cancel != nil {
		t.cancel()
	}
	for _, d := range t.tempDirs {
		os.RemoveAll(d)
	}
	t.done = true
}

// Run runs f as a subtest of t on a goroutine of its own and waits for it,
// as go test does: until f returns, or until it calls t.Parallel, after
// which the subtest goes on once t's own function has returned, alongside
// t's other parallel subtests. It reports whether f succeeded (or had not
// failed when it called Parallel). A subtest that -run or -skip leaves out
// is not run, and Run reports true.
func (t *T) Run(name string, f func(t *T)) bool {
	if t.synctest {
		panic("testing: t.Run called inside synctest bubble")
	}
	sub := newT(t.x, t.subName(name), t)
	if !subtestSelected(sub.name) {
		return true
	}
	engine.GoAndJoin(func(release func()) {
		sub.release = release
		sub.runFunc(f)
	})
	return !sub.failed
}

// runFunc runs a test's function as go test's tRunner does: when it has
// returned (or called Goexit), its parallel subtests start and are waited
// for, then its cleanups run.
func (t *T) runFunc(f func(t *T)) {
	defer t.signalDone()
	defer t.runCleanups()
	defer t.runParallelSubtests()
	f(t)
}

// Parallel signals that the test is to run in parallel with (and only
// with) its parallel siblings: Run returns in the parent, and the test
// goes on once the parent's function has returned. Every interleaving of
// the siblings is explored (go test's -parallel limit only removes some).
// A top-level test is explored alone: Parallel only marks it. The waits
// are on channels package chanobj makes and models, as the program's are.
func (t *T) Parallel() {
	if t.synctest {
		panic("testing: t.Parallel called inside synctest bubble")
	}
	if t.parallel {
		panic("testing: t.Parallel called multiple times")
	}
	if t.setenv {
		panic("testing: t.Parallel called after t.Setenv; cannot set environment variables in parallel tests")
	}
	if t.chdir {
		panic("testing: t.Parallel called after t.Chdir; cannot change the working directory in parallel tests")
	}
	t.parallel = true
	p := t.parent
	if p == nil || t.release == nil {
		return
	}
	t.ended = chanobj.MakeChan[struct{}](1)
	if p.barrier == nil {
		p.barrier = chanobj.MakeChan[struct{}](0)
	}
	p.parallelSubs = append(p.parallelSubs, t)
	t.release()
	chanobj.Recv(p.barrier)
}

// runParallelSubtests releases the parallel subtests waiting for t's
// function to return and waits for them to finish.
func (t *T) runParallelSubtests() {
	if t.barrier == nil {
		return
	}
	chanobj.Close(t.barrier)
	for _, sub := range t.parallelSubs {
		chanobj.Recv(sub.ended)
	}
}

// signalDone tells the parent of a parallel subtest that it has finished.
func (t *T) signalDone() {
	if t.ended != nil {
		chanobj.Send(t.ended, struct{}{})
	}
}

// Setenv sets an environment variable for the rest of the test.
func (t *T) Setenv(key, value string) {
	if t.inParallel() {
		panic("testing: t.Setenv called after t.Parallel; cannot set environment variables in parallel tests")
	}
	t.setenv = true
	old, had := os.LookupEnv(key)
	os.Setenv(key, value)
	t.Cleanup(func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	})
}

// Chdir changes the working directory for the rest of the test.
func (t *T) Chdir(dir string) {
	if t.inParallel() {
		panic("testing: t.Chdir called after t.Parallel; cannot change the working directory in parallel tests")
	}
	t.chdir = true
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(old) })
}

// TempDir returns a new temporary directory removed when the test ends.
func (t *T) TempDir() string {
	d, err := os.MkdirTemp("", "xbtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.tempDirs = append(t.tempDirs, d)
	return d
}

// ArtifactDir returns a directory for the test's output files.
func (t *T) ArtifactDir() string { return t.TempDir() }

// Attr records a key/value attribute in the test's log.
func (t *T) Attr(key, value string) { t.Logf("=== ATTR %s %s", key, value) }

// Context returns a context canceled when the test ends.
func (t *T) Context() context.Context {
	if t.ctx == nil {
		t.ctx, t.cancel = chanobj.ContextWithCancel(context.Background()) // on the virtual clock inside an execution
	}
	return t.ctx
}

// Output returns a writer into the test's log.
func (t *T) Output() io.Writer { return logWriter{t} }

type logWriter struct{ t *T }

func (w logWriter) Write(p []byte) (int, error) {
	t := w.t
	for t.synctest && t.parent != nil {
		t = t.parent // synctest.Test's T logs as its caller's
	}
	t.logs = append(t.logs, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// Deadline reports the deadline of the enclosing go test run, if any.
func (t *T) Deadline() (time.Time, bool) {
	if t.synctest {
		panic("testing: t.Deadline called inside synctest bubble")
	}
	return t.deadline, !t.deadline.IsZero()
}
