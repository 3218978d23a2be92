package instrument

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// The tests rewrite the modules of testdata (each a module of its own,
// outside xbtest's module as far as the go command is concerned), build
// them with the plan and run them: the scheduler's RunTest explores each
// test and appends its summary (and its start and findings) to
// $XBTEST_RESULTS.

// cacheDir is shared by the tests, so that the copy of the scheduler is
// compiled once.
var cacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "xbtest-instrument-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cacheDir = dir
	// The persistent cache of rewritten modules (build.DepCache) is the
	// tests' own.
	os.Setenv("XBTEST_DEPCACHE", filepath.Join(dir, "deps"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// report is a test's summary in the results file.
type report = *result.Result

// kindsOf are the kinds of r's findings, sorted.
func kindsOf(r report) []string {
	var ks []string
	for _, f := range r.Findings {
		ks = append(ks, string(f.Kind))
	}
	sort.Strings(ks)
	return ks
}

func testdata(name string) string {
	dir, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return dir
}

func prepare(t testing.TB, opt Options) *Plan {
	t.Helper()
	if opt.CacheDir == "" {
		opt.CacheDir = cacheDir
	}
	if len(opt.Patterns) == 0 {
		opt.Patterns = []string{"./..."}
	}
	opt.Log = t.Logf
	plan, err := Prepare(context.Background(), opt)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	t.Cleanup(plan.Cleanup)
	return plan
}

// runPlan runs go test with the plan and returns the reports by test name
// and go test's output. Tests with findings fail, so go test's exit status
// is not checked, but a build failure is.
func runPlan(t *testing.T, plan *Plan, patterns ...string) (map[string]report, string) {
	t.Helper()
	return runPlanEnv(t, plan, nil, patterns...)
}

// runPlanEnv is runPlan with more environment.
func runPlanEnv(t *testing.T, plan *Plan, env []string, patterns ...string) (map[string]report, string) {
	t.Helper()
	results := filepath.Join(t.TempDir(), "results.jsonl")
	args := append([]string{"test", "-count=1", "-timeout=120s"}, plan.BuildArgs...)
	if len(patterns) == 0 {
		for _, p := range plan.Packages {
			patterns = append(patterns, p.ImportPath)
		}
	}
	args = append(args, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(append(append(os.Environ(), plan.Env...), env...), "XBTEST_RESULTS="+results)
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "XBTEST_CONFIG=") }) {
		// Several test programs keep state in package-level variables:
		// re-running their bodies would be unsound (xbtest stops), so
		// they are explored as the command's -checkpoint=auto does.
		cmd.Env = append(cmd.Env, `XBTEST_CONFIG={"checkpoint":"auto"}`)
	}
	out, _ := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
		t.Fatalf("go %s:\n%s", strings.Join(args, " "), out)
	}
	reports := map[string]report{}
	f, err := os.Open(results)
	if err != nil {
		t.Fatalf("no results (%v); go test said:\n%s", err, out)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		// The binary reports each test as it goes (result.Line): its
		// start, each finding when first seen, and its summary.
		var l result.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad results line %s: %v", sc.Text(), err)
		}
		if l.Event == result.LineSummary && l.Result != nil {
			reports[l.Result.Test] = l.Result
		}
	}
	return reports, string(out)
}

// checkReports compares the kinds of findings of every test with want.
func checkReports(t *testing.T, reports map[string]report, want map[string][]string, out string) {
	t.Helper()
	for name, kinds := range want {
		r, ok := reports[name]
		if !ok {
			t.Errorf("%s: no report; go test said:\n%s", name, out)
			continue
		}
		if r.Internal != "" {
			t.Errorf("%s: internal error: %s", name, r.Internal)
		}
		if got := kindsOf(r); !reflect.DeepEqual(got, kinds) {
			t.Errorf("%s: findings %v, want %v: %+v", name, got, kinds, r.Findings)
		}
	}
	for name := range reports {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected report for %s", name)
		}
	}
}

// lineOf returns the line of the first line of file containing marker.
func lineOf(t *testing.T, file, marker string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line contains %q", file, marker)
	return 0
}

// TestBasic rewrites and runs the module testdata/basic, one package per
// feature, in one go test run.
func TestBasic(t *testing.T) {
	plan := prepare(t, Options{Dir: testdata("basic")})
	reports, out := runPlan(t, plan)
	none := []string(nil)
	checkReports(t, reports, map[string][]string{
		// counter: an embedded mutex, a package-level counter, a lost update.
		"TestLockedCounter": none,
		"TestLostUpdate":    {"assertion"},
		"TestGlobalTotal":   none,
		// racy: c.W races (a finding); c.V and flag race by design
		// (//xbtest:racy, TestRacyDirective checks the notes).
		"TestBump": {"race"},
		// lockorder
		"TestLockOrder":      {"lock-cycle"},
		"TestLockOrderFixed": none,
		// chans
		"TestChanPingPong":      none,
		"TestChanBufferedRange": none,
		"TestChanSelectDefault": none,
		"TestChanSelectChoice":  {"assertion"},
		"TestChanMerge":         none,
		"TestChanErrs":          none,
		"TestChanConvert":       none,
		"TestChanDeadlock":      {"deadlock"},
		// syncs
		"TestSyncOnce":      none,
		"TestSyncCondQueue": none,
		"TestSyncRWMutex":   none,
		"TestSyncAtomics":   none,
		"TestSyncMapPool":   none,
		// generic
		"TestGenericStack": none,
		"TestGenericMap":   none,
		// goargs: method values, multi-value arguments, evaluation order.
		"TestGoArgs": none,
		// panics
		"TestPanicInGoroutine": {"panic"},
		"TestPanicRecovered":   none,
		// tags, TestMain, internal and external tests, embed
		"TestTagsDefault": none,
		"TestTestMainRan": none,
		"TestXTInternal":  none,
		"TestXTExternal":  none,
		"TestEmbed":       none,
		// maps: fixed iteration order, a map shared under a lock.
		"TestMapOrder":  none,
		"TestMapShared": none,
		// maps.Keys, Values and All in the same order.
		"TestMapsIterators": none,
		// helpers: testing.TB helpers, table-driven subtests.
		"TestHelpersSubtests": {"assertion"},
		// rnd: math/rand draws the same numbers in every execution.
		"TestRandomWork": none,
		// and maphash.MakeSeed the same seeds.
		"TestMaphashSeeds": none,
		// and so does crypto/rand.
		"TestCryptoRandWork": none,
		// clock: embedded timers, method values and expressions, function
		// values and dot imports of time run on the virtual clock.
		"TestClockForms":     none,
		"TestClockContext":   none,
		"TestClockDotImport": none,
		// memdeps, with the default algorithm: lock enters are writes.
		"TestMemGlobal":   {"assertion"},
		"TestMemField":    {"assertion"},
		"TestMemCaptured": {"assertion"},
		"TestMemElem":     {"assertion"},
		"TestMemEntry":    {"assertion"},
		// tuples: every form of tuple assignment, split into temporaries.
		"TestTupleForms": none,
		// recv: a pointer method called on a field (a mutex, one embedded
		// in a struct field, a rewritten method) is no access of the
		// field; a value method reads it.
		"TestRecvLocked": none,
		"TestRecvValue":  {"race"},
		// stacks: runtime.Stack shows the program's goroutines, as a
		// leak check (go.uber.org/goleak) reads them.
		"TestStackLeakCheck": none,
		// and runtime.NumGoroutine counts them as go test would.
		"TestNumGoroutineCounts": none,
		// collect: a test waits for an object to be collected.
		"TestCollected": none,
		// synctests: testing/synctest's bubbles, Wait, time in a bubble.
		"TestSynctestSleep":       none,
		"TestSynctestWait":        none,
		"TestSynctestWaitOutside": none,
		"TestSynctestDeadlock":    {"deadlock"},
		"TestSynctestTimeStops":   {"deadlock"},
	}, out)

	t.Run("MemoryAccesses", func(t *testing.T) {
		// Without sync dependencies only memory accesses order the blocks.
		reports, out := runPlanEnv(t, plan, []string{`XBTEST_CONFIG={"algorithm":"exitblock-rw","sync_deps":false,"checkpoint":"auto"}`}, "example.com/basic/memdeps")
		checkReports(t, reports, map[string][]string{
			"TestMemGlobal":   {"assertion"},
			"TestMemField":    {"assertion"},
			"TestMemCaptured": {"assertion"},
			"TestMemElem":     {"assertion"},
			"TestMemEntry":    {"assertion"},
		}, out)
	})

	t.Run("SignalNotify", func(t *testing.T) {
		if !overlayContains(t, plan, "SignalNotify(sigc, os.Interrupt)") {
			t.Errorf("signal.Notify(sigc, os.Interrupt) in clock.go is not rewritten to the scheduler's SignalNotify")
		}
	})
	t.Run("SelectExplored", func(t *testing.T) {
		if r := reports["TestChanSelectChoice"]; len(r.Findings) == 1 && !strings.Contains(r.Findings[0].Message, "select chose b") {
			t.Errorf("finding: %+v", r.Findings[0])
		}
	})
	t.Run("PanicPosition", func(t *testing.T) {
		line := lineOf(t, filepath.Join(testdata("basic"), "panics", "panics.go"), "PANIC LINE")
		want := fmt.Sprintf("panics/panics.go:%d", line)
		r := reports["TestPanicInGoroutine"]
		if len(r.Findings) != 1 || r.Findings[0].Pos != want || !strings.Contains(r.Findings[0].Message, "boom") {
			t.Errorf("panic finding %+v, want one at %s", r.Findings, want)
		}
	})
	t.Run("AssertionPosition", func(t *testing.T) {
		line := lineOf(t, filepath.Join(testdata("basic"), "counter", "counter_test.go"), "lost update: got")
		want := fmt.Sprintf("counter/counter_test.go:%d", line)
		if r := reports["TestLostUpdate"]; len(r.Findings) != 1 || r.Findings[0].Pos != want {
			t.Errorf("finding %+v, want one at %s", r.Findings, want)
		}
	})
	t.Run("Packages", func(t *testing.T) {
		byPath := map[string]Package{}
		var paths []string
		for _, p := range plan.Packages {
			byPath[p.ImportPath] = p
			paths = append(paths, p.ImportPath)
		}
		if !sort.StringsAreSorted(paths) || len(paths) != 23 {
			t.Errorf("packages %v", paths)
		}
		if p := byPath["example.com/basic/notests"]; p.HasTests || len(p.Tests) != 0 || p.Name != "notests" {
			t.Errorf("notests: %+v", p)
		}
		// An example with an output comment is one go test would run.
		if p := byPath["example.com/basic/counter"]; p.Examples != 1 || byPath["example.com/basic/rnd"].Examples != 0 {
			t.Errorf("examples go test would run: counter %d (want 1), rnd %d", p.Examples, byPath["example.com/basic/rnd"].Examples)
		}
		if p := byPath["example.com/basic/xt"]; !reflect.DeepEqual(p.Tests, []string{"TestXTInternal", "TestXTExternal"}) {
			t.Errorf("xt tests: %v", p.Tests)
		}
		if p := byPath["example.com/basic/chans"]; len(p.Tests) != 8 || p.Tests[0] != "TestChanPingPong" {
			t.Errorf("chans tests: %v", p.Tests)
		}
	})
	t.Run("BuildTags", func(t *testing.T) {
		ov := readOverlay(t, plan)
		dir := filepath.Join(testdata("basic"), "tags")
		if _, ok := ov[filepath.Join(dir, "tagged.go")]; ok {
			t.Error("tagged.go, excluded by its build tag, was rewritten")
		}
		if _, ok := ov[filepath.Join(dir, "tags.go")]; !ok {
			t.Error("tags.go was not rewritten")
		}
	})
	t.Run("MethodReceivers", func(t *testing.T) {
		// Calling a pointer method takes the receiver's address: no hook
		// for the receiver, whether the method locks a mutex field, one
		// embedded in a struct-typed field, or is a rewritten method; a
		// value method copies its receiver: a read.
		orig := filepath.Join(testdata("basic"), "recv", "recv.go")
		rw, err := os.ReadFile(readOverlay(t, plan)[orig])
		if err != nil {
			t.Fatal(err)
		}
		lineWith := func(marker string) string {
			for _, l := range strings.Split(string(rw), "\n") {
				if strings.HasSuffix(l, "// "+marker) {
					return l
				}
			}
			t.Fatalf("no line of the rewritten recv.go ends with // %s:\n%s", marker, rw)
			return ""
		}
		for _, m := range []string{"PLAIN", "COALESCED", "NAMED", "COUNTER"} {
			if l := lineWith(m); strings.Contains(l, "_xb") {
				t.Errorf("%s: the receiver is reported: %s", m, l)
			}
		}
		if l := lineWith("VALUE"); !strings.Contains(l, "_xbLoad(&s.v, ") {
			t.Errorf("VALUE: the value receiver is not read: %s", l)
		}
		// The race TestRecvValue finds: Set's write and Show's read.
		set := fmt.Sprintf("recv/recv.go:%d", lineOf(t, orig, "s.v = V{a, a}"))
		show := fmt.Sprintf("recv/recv.go:%d", lineOf(t, orig, "// VALUE"))
		f := reports["TestRecvValue"].Findings
		if len(f) != 1 || !strings.HasPrefix(f[0].Message, "data race on s.v: ") {
			t.Fatalf("TestRecvValue: %+v", f)
		}
		at := map[string]string{}
		for _, g := range f[0].Goroutines {
			at[g.State] = g.Pos
		}
		if at["write"] != set || at["read"] != show {
			t.Errorf("TestRecvValue: %+v, want the write at %s and the read at %s", f[0].Goroutines, set, show)
		}
	})
	t.Run("LinesKept", func(t *testing.T) {
		checkLines(t, readOverlay(t, plan))
	})
	t.Run("OpAssignTargetOnce", func(t *testing.T) {
		// c.n++ evaluates its target once, as Go does: its address is
		// taken once and both the load and the store go through it
		// ({ p := &c.n; ...set(_xbLoad(p, pos) + 1) }), so the read of c
		// is not reported twice.
		for f, rewritten := range readOverlay(t, plan) {
			if !strings.HasSuffix(f, "counter/counter.go") {
				continue
			}
			b, err := os.ReadFile(rewritten)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			if !strings.Contains(src, ":= &c.n; _xbAt(") || strings.Contains(src, "_xbAt(&c.n") {
				t.Errorf("c.n++ in %s evaluates its target more than once:\n%s", f, src)
			}
			return
		}
		t.Error("counter.go is not in the overlay")
	})
	t.Run("UserFilesUntouched", func(t *testing.T) {
		// The overlay replaces files; nothing of the rewrite is on disk.
		matches, _ := filepath.Glob(filepath.Join(testdata("basic"), "*", "xbtest_gen*.go"))
		if len(matches) > 0 {
			t.Errorf("generated files on disk: %v", matches)
		}
	})
}

func readOverlay(t *testing.T, plan *Plan) map[string]string {
	t.Helper()
	data, err := os.ReadFile(plan.Overlay)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	return ov.Replace
}

// checkLines checks that every identifier of every original file that
// survives the rewrite sits on its original line: the rewritten file,
// parsed with its line directives, puts each identifier at a position whose
// line holds that identifier in the original.
func checkLines(t *testing.T, overlay map[string]string) {
	t.Helper()
	n := 0
	for orig, rewritten := range overlay {
		if _, err := os.Stat(orig); err != nil || !strings.HasSuffix(orig, ".go") {
			continue // added file
		}
		fset := token.NewFileSet()
		of, err := parser.ParseFile(fset, orig, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		ast.Inspect(of, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				have[fmt.Sprintf("%s:%d", id.Name, fset.Position(id.Pos()).Line)] = true
			}
			return true
		})
		rf, err := parser.ParseFile(fset, rewritten, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: rewritten file does not parse: %v", orig, err)
			continue
		}
		ast.Inspect(rf, func(nd ast.Node) bool {
			id, ok := nd.(*ast.Ident)
			if !ok || strings.HasPrefix(id.Name, "_xb") || id.Name == "xb" || id.Name == "_" {
				return true
			}
			p := fset.Position(id.Pos())
			if p.Filename != orig {
				return true
			}
			if _, generated := map[string]bool{"Go": true, "Step": true, "Cold": true, "Alloc": true, "Pointer": true, "Sizeof": true,
				"RunTest": true, "T": true, "Send": true, "Recv": true, "Recv2": true, "Close": true, "MakeChan": true, "Select": true,
				"SendCase": true, "RecvCase": true, "set": true, "ok": true, "c": true, "v": true, "next": true, "val": true, "New": true,
				"NewMap": true, "Len": true, "LenSend": true, "RegisterPositions": true, "RegisterExprs": true, "RegisterRacy": true, "int32": true, "string": true, "Rand": true, "RandV2": true, "MapsKeys": true, "MapsValues": true, "MapsAll": true, "MaphashMakeSeed": true, "bool": true, "new": true, "nil": true, "true": true, "false": true}[id.Name]; generated || clockName(id.Name) {
				return true
			}
			n++
			if !have[fmt.Sprintf("%s:%d", id.Name, p.Line)] {
				t.Errorf("%s: %s is at line %d in the rewritten file, not in the original", orig, id.Name, p.Line)
			}
			return true
		})
	}
	if n < 500 {
		t.Errorf("only %d identifiers checked", n)
	}
}

// clockName reports whether name is a scheduler function the rewriter puts
// in place of a time or context function or method (or of testing/synctest's).
func clockName(name string) bool {
	for _, n := range synctestFuncs {
		if n == name {
			return true
		}
	}
	for _, m := range clockFuncs {
		for _, n := range m {
			if n == name {
				return true
			}
		}
	}
	for t, n := range clockMethods {
		// t: the embedded field a promoted Stop or Reset is called on.
		if n == name || t == name || strings.TrimSuffix(n, "Of")+"Stop" == name || strings.TrimSuffix(n, "Of")+"Reset" == name {
			return true
		}
	}
	return false
}

// TestOldModule rewrites a module whose go.mod says go 1.12: the rewritten
// files call non-generic wrappers and keep one loop variable per loop.
func TestOldModule(t *testing.T) {
	plan := prepare(t, Options{Dir: testdata("old")})
	reports, out := runPlan(t, plan)
	checkReports(t, reports, map[string][]string{
		"TestOldLoopVars": nil,
		"TestOldPipeline": nil,
		// One loop variable shared by the goroutines: a lost value and
		// the data race on the variable (written by the loop, read by the
		// goroutines) that causes it.
		"TestOldSharedLoopVar": {"assertion", "race"},
		"TestOldRMWOrder":      {"race", "race"},
		"TestOldTuple":         nil,
	}, out)
}

// TestBufferedHelpers rewrites with the helpers of -memory tso (loads and
// assignments carry their values through the store buffers), including the
// wrappers of a module that predates generics, and checks that the verdicts
// of programs that synchronize properly do not change, while the data race
// stays a data race.
func TestBufferedHelpers(t *testing.T) {
	plan := prepare(t, Options{Dir: testdata("old"), Memory: settings.TSO})
	if !overlayContains(t, plan, "_xbs.Store(p, v, pos)") {
		t.Fatal("no buffered helpers in the rewritten files")
	}
	reports, out := runPlanEnv(t, plan, []string{`XBTEST_CONFIG={"algorithm":"exitblock-rwdd","memory":"tso","checkpoint":"auto"}`})
	checkReports(t, reports, map[string][]string{
		"TestOldLoopVars":      nil,
		"TestOldPipeline":      nil,
		"TestOldSharedLoopVar": {"assertion", "race"},
		// The read-modify-write is fenced after set(): no reordering.
		"TestOldRMWOrder": {"race", "race"},
		"TestOldTuple":    nil,
	}, out)
	// Tuple assignments split into temporaries store through the buffers
	// and keep their values.
	tuples := prepare(t, Options{Dir: testdata("basic"), Patterns: []string{"./tuples"}, Memory: settings.TSO})
	treports, tout := runPlanEnv(t, tuples, []string{`XBTEST_CONFIG={"algorithm":"exitblock-rwdd","memory":"tso","checkpoint":"auto"}`})
	checkReports(t, treports, map[string][]string{"TestTupleForms": nil}, tout)
	// The stores of the shared loop variable go through a store buffer
	// now: its flushes are scheduling events of their own.
	sc, _ := runPlan(t, prepare(t, Options{Dir: testdata("old")}))
	if n, m := reports["TestOldSharedLoopVar"].Schedules, sc["TestOldSharedLoopVar"].Schedules; n <= m {
		t.Errorf("TestOldSharedLoopVar: %d schedules under tso, %d under sc; the stores are not buffered", n, m)
	}
}

// TestRacyDirective: the access sites of a variable or field declared with
// //xbtest:racy are registered as racy by design, with the reason; the
// other sites are not: under xbtest the races on the racy field and
// variable are notes, the one on the other field a finding.
func TestRacyDirective(t *testing.T) {
	plan := prepare(t, Options{Dir: testdata("basic"), Patterns: []string{"./racy"}})
	for _, s := range []string{`RegisterRacy(`, `"the cell's word"`, `"the flag"`} {
		if !overlayContains(t, plan, s) {
			t.Errorf("the rewritten files lack %s", s)
		}
	}
	reports, out := runPlan(t, plan)
	r := reports["TestBump"]
	checkReports(t, reports, map[string][]string{"TestBump": {"race"}}, out)
	if r == nil || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "expected race (//xbtest:racy the cell's word)") }) {
		t.Errorf("no note of the expected race: %+v", r)
	}
}

// A binary rewritten for one memory model refuses to explore under
// another, with an error that says how to rebuild it, rather than explore
// with stores that bypass (or wrongly enter) the store buffers.
func TestRewrittenForOneMemoryModel(t *testing.T) {
	for _, c := range []struct {
		built settings.Memory
		run   string
		want  string
	}{
		{settings.SC, "tso", "rewritten for -memory sc; it cannot run under -memory tso"},
		{settings.TSO, "sc", "rewritten for -memory tso or pso; it cannot run under -memory sc"},
	} {
		plan := prepare(t, Options{Dir: testdata("basic"), Patterns: []string{"./tuples"}, Memory: c.built})
		reports, out := runPlanEnv(t, plan, []string{`XBTEST_CONFIG={"memory":"` + c.run + `","checkpoint":"auto"}`})
		r := reports["TestTupleForms"]
		if r == nil || !strings.Contains(r.Internal, c.want) || r.Schedules != 0 || !strings.Contains(out, c.want) {
			t.Errorf("built for %s, run under %s: report %+v, output:\n%s\nwant %q", c.built, c.run, r, out, c.want)
		}
	}
}

// overlayContains reports whether a file of the plan's overlay contains s.
func overlayContains(t *testing.T, plan *Plan, s string) bool {
	t.Helper()
	b, err := os.ReadFile(plan.Overlay)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &ov); err != nil {
		t.Fatal(err)
	}
	for _, f := range ov.Replace {
		if c, err := os.ReadFile(f); err == nil && strings.Contains(string(c), s) {
			return true
		}
	}
	return false
}

// TestVendor rewrites a module that builds from vendor/: the build runs in
// module mode with each vendored module replaced by its directory under
// vendor/ (a go.mod that requires the scheduler would disagree with
// vendor/modules.txt); a vendored package that starts goroutines is
// rewritten by default, and -instrument can name one.
func TestVendor(t *testing.T) {
	if !longSuite {
		t.Skip("long suite (go test -tags long)")
	}
	t.Run("Plain", func(t *testing.T) {
		plan := prepare(t, Options{Dir: testdata("vend"), NoDeps: true})
		if plan.ModFile == "" || !slices.Contains(plan.BuildArgs, "-mod=mod") {
			t.Errorf("vendor mode: ModFile %q, BuildArgs %q", plan.ModFile, plan.BuildArgs)
		}
		for orig := range readOverlay(t, plan) {
			if strings.Contains(orig, filepath.Join("vendor", "example.com")) && strings.HasSuffix(orig, ".go") {
				t.Errorf("vendored file rewritten with NoDeps, without -instrument: %s", orig)
			}
		}
		reports, out := runPlan(t, plan, "-run=TestVendorPlain", "./...")
		checkReports(t, reports, map[string][]string{"TestVendorPlain": nil}, out)
	})
	t.Run("Default", func(t *testing.T) {
		plan := prepare(t, Options{Dir: testdata("vend")})
		if len(plan.Deps) != 1 || plan.Deps[0].Path != "example.com/dep" || !plan.Deps[0].Rewritten || plan.Deps[0].Cached {
			t.Errorf("deps %+v, want example.com/dep rewritten", plan.Deps)
		}
		reports, out := runPlan(t, plan, "./...")
		checkReports(t, reports, map[string][]string{
			"TestVendorPlain": nil,
			"TestVendorBoth":  {"lock-cycle"},
		}, out)
	})
	t.Run("Extra", func(t *testing.T) {
		plan := prepare(t, Options{Dir: testdata("vend"), NoDeps: true, Extra: []string{"example.com/dep"}})
		reports, out := runPlan(t, plan, "./...")
		checkReports(t, reports, map[string][]string{
			"TestVendorPlain": nil,
			"TestVendorBoth":  {"lock-cycle"},
		}, out)
	})
}

// TestExtraModuleCache rewrites golang.org/x/sync/errgroup, a package of
// the module cache (which cannot be overlaid), so that the goroutines it
// starts are controlled: the module is copied and the temporary go.mod
// replaces it by the copy.
func TestExtraModuleCache(t *testing.T) {
	if _, err := os.Stat(filepath.Join(goEnvOf(t, "GOMODCACHE"), "golang.org", "x", "sync@v0.24.0", "errgroup")); err != nil {
		t.Skipf("golang.org/x/sync@v0.24.0 is not in the module cache: %v", err)
	}
	gosum, _ := os.ReadFile(filepath.Join(testdata("extra"), "go.sum"))
	plan := prepare(t, Options{Dir: testdata("extra"), Extra: []string{"golang.org/x/sync/..."}})
	mod, err := os.ReadFile(plan.ModFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "golang.org/x/sync => ") || !strings.Contains(string(mod), "github.com/xbtest/xbtest => ") {
		t.Errorf("temporary go.mod:\n%s", mod)
	}
	reports, out := runPlan(t, plan)
	checkReports(t, reports, map[string][]string{
		"TestErrgroupLockOrder": {"lock-cycle"},
		"TestErrgroupFixed":     nil,
	}, out)
	if after, _ := os.ReadFile(filepath.Join(testdata("extra"), "go.sum")); !bytes.Equal(after, gosum) {
		t.Error("the user's go.sum changed")
	}
}

func goEnvOf(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestOutsideRepository copies a module to a directory outside xbtest's
// checkout: the temporary go.mod points at the scheduler's copy, and the
// user's go.mod is not modified.
func TestOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(testdata("old"))); err != nil {
		t.Fatal(err)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	plan := prepare(t, Options{Dir: filepath.Join(dir, "loops"), Patterns: []string{"."}})
	if plan.ModFile == "" || plan.Dir != filepath.Join(dir, "loops") {
		t.Errorf("plan: ModFile %q Dir %q", plan.ModFile, plan.Dir)
	}
	reports, out := runPlan(t, plan, "-run=TestOldLoopVars|TestOldPipeline", ".")
	checkReports(t, reports, map[string][]string{"TestOldLoopVars": nil, "TestOldPipeline": nil}, out)
	if after, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !bytes.Equal(after, gomod) {
		t.Errorf("go.mod changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
		t.Error("a go.sum appeared")
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"NoSuchPackage", []string{"./nosuch"}, []string{`instrument: no packages match "`, "nosuch"}},
		{"NoMatch", []string{"./nosuch/..."}, []string{`instrument: no packages match "./nosuch/..."`}},
		{"CompileError", []string{"./bad"}, []string{"instrument: package example.com/errs/bad does not compile:\n",
			fmt.Sprintf("bad.go:%d:", lineOf(t, filepath.Join(testdata("errs"), "bad", "bad.go"), "COMPILE ERROR"))}},
		{"Cgo", []string{"./cgopkg"}, []string{"instrument: cgo package example.com/errs/cgopkg is not supported"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Prepare(context.Background(), Options{Dir: testdata("errs"), Patterns: tc.patterns, CacheDir: cacheDir})
			if err == nil {
				plan.Cleanup()
				t.Fatal("Prepare succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(firstLine(err.Error()), "\n") {
				t.Errorf("first line: %q", err)
			}
		})
	}
	t.Run("TaggedFileCompiled", func(t *testing.T) {
		// With the tag, tagged.go is compiled, and it does not compile.
		_, err := Prepare(context.Background(), Options{Dir: testdata("basic"), Patterns: []string{"./tags"}, Tags: []string{"xbtag"}, CacheDir: cacheDir})
		if err == nil || !strings.Contains(err.Error(), "tagged.go:8:") {
			t.Errorf("Prepare with -tags=xbtag: %v", err)
		}
	})
	t.Run("ExtraMatchesNothing", func(t *testing.T) {
		_, err := Prepare(context.Background(), Options{Dir: testdata("basic"), Patterns: []string{"./tags"}, Extra: []string{"example.com/nothing/..."}, CacheDir: cacheDir})
		if err == nil || !strings.Contains(err.Error(), `-instrument pattern "example.com/nothing/..." matches no package`) {
			t.Errorf("Prepare: %v", err)
		}
	})
}

// TestCleanup checks that Cleanup removes what the plan created.
func TestCleanup(t *testing.T) {
	cache := t.TempDir()
	plan, err := Prepare(context.Background(), Options{Dir: testdata("basic"), Patterns: []string{"./notests"}})
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Dir(plan.Overlay)
	plan.Cleanup()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("%s still exists", tmp)
	}
	plan, err = Prepare(context.Background(), Options{Dir: testdata("basic"), Patterns: []string{"./notests"}, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plan.Overlay, cache) {
		t.Errorf("overlay %s not in the cache %s", plan.Overlay, cache)
	}
	plan.Cleanup()
	if _, err := os.Stat(filepath.Dir(plan.Overlay)); !os.IsNotExist(err) {
		t.Errorf("the plan's directory still exists")
	}
}

func BenchmarkPrepare(b *testing.B) {
	dir := testdata("basic")
	for b.Loop() {
		plan, err := Prepare(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		plan.Cleanup()
	}
}

// TestWorkspace rewrites a module of a go.work workspace, and a package of
// another module of the workspace through Extra: -modfile cannot be used
// there, so a copy of go.work uses the scheduler's copy.
func TestWorkspace(t *testing.T) {
	plan := prepare(t, Options{Dir: filepath.Join(testdata("work"), "a"), Patterns: []string{"./..."}, Extra: []string{"example.com/b"}})
	if plan.ModFile != "" || len(plan.Env) != 1 || !strings.HasPrefix(plan.Env[0], "GOWORK=") {
		t.Errorf("plan: ModFile %q, Env %q", plan.ModFile, plan.Env)
	}
	reports, out := runPlan(t, plan)
	checkReports(t, reports, map[string][]string{"TestWorkspace": nil}, out)
}

// TestDependencyModule runs the tests of packages of the main module's
// dependencies, named by import path (modules of the module cache): each
// module is copied and rewritten, and the temporary go.mod is the main
// module's (testdata/dep), which requires them, not the dependency's own.
// The tests of go.uber.org/atomic import github.com/stretchr/testify,
// which dep's go.sum lacks: the temporary go.mod and go.sum get it, and the
// user's files do not change.
func TestDependencyModule(t *testing.T) {
	cache := goEnvOf(t, "GOMODCACHE")
	for _, m := range []string{"golang.org/x/sync@v0.24.0", "go.uber.org/atomic@v1.12.0"} {
		if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(m))); err != nil {
			t.Skipf("%s is not in the module cache: %v", m, err)
		}
	}
	dir := testdata("dep")
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	gosum, _ := os.ReadFile(filepath.Join(dir, "go.sum"))
	plan := prepare(t, Options{Dir: dir, Patterns: []string{"golang.org/x/sync/semaphore", "golang.org/x/sync/singleflight",
		"golang.org/x/sync/errgroup", "go.uber.org/atomic"}})
	mod, err := os.ReadFile(plan.ModFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module example.com/dep", "golang.org/x/sync => ", "go.uber.org/atomic => "} {
		if !strings.Contains(string(mod), want) {
			t.Errorf("temporary go.mod lacks %q:\n%s", want, mod)
		}
	}
	if sum, _ := os.ReadFile(strings.TrimSuffix(plan.ModFile, ".mod") + ".sum"); !strings.Contains(string(sum), "github.com/stretchr/testify ") {
		t.Errorf("temporary go.sum lacks testify:\n%s", sum)
	}
	reports, out := runPlan(t, plan, "-run=^(TestWeightedTryAcquire|TestDo|TestZeroGroup|TestBool)$",
		"golang.org/x/sync/semaphore", "golang.org/x/sync/singleflight", "golang.org/x/sync/errgroup", "go.uber.org/atomic")
	checkReports(t, reports, map[string][]string{
		"TestWeightedTryAcquire": nil,
		"TestDo":                 nil,
		"TestZeroGroup":          nil,
		"TestBool":               nil,
	}, out)
	if after, _ := os.ReadFile(filepath.Join(dir, "go.mod")); !bytes.Equal(after, gomod) {
		t.Errorf("the user's go.mod changed:\n%s", after)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "go.sum")); !bytes.Equal(after, gosum) {
		t.Errorf("the user's go.sum changed:\n%s", after)
	}
}

// goLineModule copies the module testdata/golines to a temporary
// directory with the go line v ("" for none) and returns its directory.
func goLineModule(t *testing.T, v string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(testdata("golines"))); err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/golines\n"
	if v != "" {
		gomod += "\ngo " + v + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGoLines rewrites, builds and runs testdata/golines under go lines
// the go command accepts, from none (go 1.16) and 1.0 to the current one
// (1.9, 1.14, 1.15 and 1.20 passed too, but add nothing the others do not
// test).
// Below 1.18 the rewrite calls typed wrappers, whose types must be the
// rewritten ones: anonymous structs with sync.Mutex, RWMutex, Cond,
// WaitGroup, Once, Map, typed atomics, *testing.T and testing.TB fields,
// pointers, slices, maps and channels of them (oldsync). Below 1.22 the
// variables of a loop are shared by its iterations, and goroutines that
// read them race with the loop's writes, those of range loops included
// (loopvar); a //go:build go1.N line sets a file's own version.
func TestGoLines(t *testing.T) {
	lines := []string{"1.16", "1.21"} // go test ./...; the others under -tags long
	if longSuite {
		lines = []string{"", "1.13", "1.17", "1.22", "1.0", "1.12", "1.18", "1.26.0"}
	}
	for _, v := range lines {
		name := "go" + v
		if v == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := goLineModule(t, v)
			plan := prepare(t, Options{Dir: dir})
			if v != "" && build.VersionLess(v, "1.18") && !overlayContains(t, plan, "_xbs.Mutex") {
				t.Error("no wrapper names the scheduler's Mutex")
			}
			var loopRace []string
			if v == "" || build.VersionLess(v, "1.22") {
				loopRace = []string{"race"}
			}
			// The rewrite reports the range loop's write of v at each
			// iteration when v is one variable per loop.
			rw, err := os.ReadFile(readOverlay(t, plan)[filepath.Join(dir, "loopvar", "loopvar_test.go")])
			if err != nil {
				t.Fatal(err)
			}
			wrote := regexp.MustCompile(`(_xbWrote|_xbWtest\d+)\(&v, _xbP\d+\+\d+\); _?xbs?\.Step\(\)`)
			if got := len(wrote.FindAll(rw, -1)); loopRace != nil && got != 2 || loopRace == nil && got != 0 {
				t.Errorf("%d reports of a write of v at the start of a range loop body, want %d per-loop variables:\n%s", got, 2*len(loopRace), rw)
			}
			reports, out := runPlan(t, plan)
			checkReports(t, reports, map[string][]string{
				"TestOldSyncWork":   nil,
				"TestOldSyncFields": nil,
				"TestRangeSliceVar": loopRace,
				"TestRangeMapVar":   loopRace,
				"TestRangeChanVar":  loopRace,
				"TestForClauseVar":  loopRace,
				"TestFileGo121":     {"race"},
				"TestFileGo122":     nil,
			}, out)
			if loopRace == nil {
				return
			}
			// The loop writes v at each iteration; the goroutine of the
			// first one reads it.
			file := filepath.Join(dir, "loopvar", "loopvar_test.go")
			write := fmt.Sprintf("loopvar/loopvar_test.go:%d", lineOf(t, file, "RANGE SLICE"))
			read := fmt.Sprintf("loopvar/loopvar_test.go:%d", lineOf(t, file, "READ SLICE"))
			f := reports["TestRangeSliceVar"].Findings
			if len(f) != 1 || f[0].Message != "data race on v: read by T0.1 and write by T0" {
				t.Fatalf("TestRangeSliceVar: %+v, want a race on v", f)
			}
			at := map[string]string{}
			for _, g := range f[0].Goroutines {
				at[g.State] = g.Pos
			}
			if at["write"] != write || at["read"] != read {
				t.Errorf("TestRangeSliceVar: %+v, want the write at %s and the read at %s", f[0].Goroutines, write, read)
			}
		})
	}
}
