package engine

import "github.com/xbtest/xbtest/result"

// The primitives of T, the model of *testing.T (package
// scheduler/internal/testingobj), besides those every drop-in object has
// (primitives.go): how the engine starts a test's body (Body) and what it
// keeps of the top-level test (Test), how a test fails, is skipped or
// reports an assertion, and how Run waits for a subtest. Their list is
// the package doc's ("The test handle").

// Test is the top-level test of an execution, as the engine sees it.
type Test interface {
	// Log is the test's log so far, which each finding carries.
	Log() []string
	// FailedNow reports whether FailNow or SkipNow was called: when it
	// ends the test goroutine, it ends the test.
	FailedNow() bool
}

// Body runs a test's function as the top-level test named name of x (the
// zero Exec: none is under way), on the calling goroutine: it hands the
// test's handle to begin before the function starts, then runs the
// function, its parallel subtests and its cleanups. The driver makes it
// (testingobj.Body) and Execution.Reset takes it.
type Body func(x Exec, name string, begin func(Test))

// TestFailed marks the execution's test failed (T.Fail, on any test of
// the execution).
func (x Exec) TestFailed() { x.r.failed = true }

// TestSkipped marks the execution's test skipped (T.SkipNow on the
// top-level test): Execution.Skipped.
func (x Exec) TestSkipped() { x.r.skipped = true }

// ID names t in reports ("goroutine 3").
func (t *G) ID() string { return t.id() }

// AddFinding records a finding t's operation reports (T.Error's
// assertion), with key telling it from others of the exploration, and the
// path that leads to it.
func (t *G) AddFinding(f *result.Finding, key string) { t.r.addFinding(f, key) }
