package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

func TestGoTestStyleFlags(t *testing.T) {
	var errOut bytes.Buffer
	o, err := parseFlags([]string{"-run", "TestX", "-v", "-json", "-algo=exitblock-dd", "--sync-deps=false", "-max-schedules", "5", "-o", "out", "./a", "./b"}, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if o.run != "TestX" || !o.verbose || !o.json || o.s.Algorithm != settings.ExitBlockDD || o.s.SyncDeps || o.s.MaxSchedules != 5 || o.out != "out" || !slices.Equal(o.packages, []string{"./a", "./b"}) {
		t.Errorf("parsed %+v", o)
	}
	if o, _ := parseFlags(nil, &errOut); !slices.Equal(o.packages, []string{"."}) {
		t.Errorf("default packages %v", o.packages)
	}
}

// TestBruteAlgo: -algo brute, the unpruned reference explorer, reaches the
// test binary's settings.
func TestBruteAlgo(t *testing.T) {
	var errOut bytes.Buffer
	o, err := parseFlags([]string{"-algo", "brute"}, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sent(o)
	if err != nil || cfg.Algorithm != settings.Brute {
		t.Fatalf("-algo brute: algorithm %v, %v", cfg.Algorithm, err)
	}
}

// TestMemoryFlags checks that -memory and -cas reach the test binary's
// settings, that tso and pso imply access granularity, and that a relaxed
// CAS is PSO's only.
func TestMemoryFlags(t *testing.T) {
	for _, c := range []struct {
		args         []string
		memory, gran string
		access       bool
		cas          string
	}{
		{nil, "sc", "sync", false, "full"},
		{[]string{"-granularity", "access"}, "sc", "access", true, "full"},
		{[]string{"-memory", "tso"}, "tso", "access", true, "full"},
		{[]string{"--memory=pso", "-granularity=sync"}, "pso", "access", true, "full"},
		{[]string{"-memory", "pso", "-cas", "relaxed"}, "pso", "access", true, "relaxed"},
		{[]string{"-memory", "tso", "-cas", "relaxed"}, "tso", "access", true, "full"},
	} {
		var errOut bytes.Buffer
		o, err := parseFlags(c.args, &errOut)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		cfg, err := sent(o)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.Memory.String() != c.memory || cfg.Granularity.String() != c.gran || (cfg.Granularity == settings.Access) != c.access {
			t.Errorf("%v: the binary is told memory %v, granularity %v; want %s %s", c.args, cfg.Memory, cfg.Granularity, c.memory, c.gran)
		}
		if cfg.CAS.String() != c.cas {
			t.Errorf("%v: the binary is told -cas %v, want %s", c.args, cfg.CAS, c.cas)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-algo", "dfs"}, `unknown algorithm "dfs"`},
		{[]string{"-granularity", "word"}, `unknown granularity "word"`},
		{[]string{"-memory", "arm"}, `unknown memory model "arm"`},
		{[]string{"-cas", "weak"}, `unknown CAS semantics "weak" (want full or relaxed)`},
		{[]string{"-checkpoint", "snapshot"}, `unknown checkpoint strategy "snapshot" (want rerun, fork or auto)`},
		{[]string{"-nosuchflag"}, "unknown flag"},
		{[]string{"-max-steps", "-1"}, "must not be negative"},
		{[]string{"-html", "/nonexistent-dir/run.html"}, "-html /nonexistent-dir/run.html: no directory /nonexistent-dir to write it in"},
		{[]string{"-html", "run.html", "-replay", "x.json"}, "-html reports a run"},
		{[]string{"-strategy", "bfs"}, `unknown strategy "bfs" (want dfs, pb, pct or random)`},
		{[]string{"-strategy", "random"}, "-strategy random samples schedules without end: give -samples, -max-schedules or -timeout"},
		{[]string{"-strategy", "pct", "-samples", "10", "-pct-depth", "0"}, "-pct-depth must be at least 1"},
		{[]string{"-strategy", "pct", "-samples", "-1"}, "must not be negative"},
		{[]string{"-algo", "brute", "-strategy", "pb"}, "-algo brute is the exhaustive reference: it explores in dfs order, not -strategy pb"},
	} {
		var out, errOut bytes.Buffer
		if s := run(c.args, &out, &errOut); s != exitError || !strings.Contains(errOut.String(), c.want) || out.Len() != 0 {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, s, errOut.String(), c.want)
		}
	}
	var out, errOut bytes.Buffer
	if s := run([]string{"-h"}, &out, &errOut); s != exitOK || !strings.Contains(errOut.String(), "usage: xbtest") {
		t.Errorf("-h: status %d, %q", s, errOut.String())
	}
	// PCT's guarantee is stated where the flag is.
	if !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), "found with probability at least 1/(n k^(d-1)) per sample") {
		t.Errorf("-h does not state PCT's guarantee")
	}
}

// hashTree fingerprints every file under dir except xbtest's output.
func hashTree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	h := map[string][32]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "xbtest-out" {
				return filepath.SkipDir
			}
			return err
		}
		b, _ := os.ReadFile(p)
		h[p] = sha256.Sum256(b)
		return nil
	})
	return h
}

func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	s := run(args, &out, &errOut)
	return s, out.String(), errOut.String()
}

const extDeadlock = `package dl

import "sync"

type Account struct {
	mu  sync.Mutex
	bal int
}

// Transfer locks the sender first: two opposite transfers deadlock.
func Transfer(from, to *Account, n int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.bal -= n
	to.bal += n
}
`

const extDeadlockTest = `package dl

import (
	"sync"
	"testing"
)

func TestOppositeTransfers(t *testing.T) {
	a, b := &Account{bal: 10}, &Account{bal: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Transfer(a, b, 1) }()
	go func() { defer wg.Done(); Transfer(b, a, 1) }()
	wg.Wait()
}
`

const extLostUpdate = `package lu

import "sync"

// Counter reads and writes under the lock, but in two critical sections.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc() {
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}

func (c *Counter) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
`

const extLostUpdateTest = `package lu

import (
	"sync"
	"testing"
)

func TestTwoIncrements(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); c.Inc() }()
	}
	wg.Wait()
	if n := c.N(); n != 2 {
		t.Fatalf("lost update: counter is %d", n)
	}
}
`

// A module outside the repository, with its own go.mod: xbtest finds its
// deadlock and its lost update and leaves its files alone. Its packages
// are explored at once (-p 2) and printed in order, also when their test
// binaries come from the build cache (the second run).
func TestExternalModule(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":        "module example.com/ext\n\ngo 1.22\n",
		"dl/dl.go":      extDeadlock,
		"dl/dl_test.go": extDeadlockTest,
		"lu/lu.go":      extLostUpdate,
		"lu/lu_test.go": extLostUpdateTest,
		"doc/doc.go":    "// Package doc has no tests.\npackage doc\n",
	})
	cache := t.TempDir()
	for run := range 2 {
		externalModule(t, run, dir, cache)
	}
}

func externalModule(t *testing.T, run int, dir, cache string) {
	before := hashTree(t, dir)
	tmp := t.TempDir() // the command's TMPDIR: it must be empty again afterwards
	t.Setenv("TMPDIR", tmp)
	out := t.TempDir()
	status, stdout, stderr := runIn(t, dir, "-json", "-p", "2", "-cache", cache, "-o", out, "./...")
	if status != exitFindings {
		t.Fatalf("run %d: status %d\n%s\n%s", run, status, stdout, stderr)
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e struct{ Package string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Package != "" && (len(order) == 0 || order[len(order)-1] != e.Package) {
			order = append(order, e.Package)
		}
	}
	if want := []string{"example.com/ext/dl", "example.com/ext/doc", "example.com/ext/lu"}; !slices.Equal(order, want) {
		t.Errorf("packages printed in the order %q, want %q, each whole", order, want)
	}
	ev := testkit.DecodeEvents(t, stdout).Relative("example.com/ext/")
	found := map[string]*result.FindingEvent{}
	for _, f := range ev.Findings {
		found[f.Package] = f
	}
	dl, lu := found["dl"], found["lu"]
	if dl == nil || dl.Kind != result.LockCycle || lu == nil || lu.Kind != result.Assertion || lu.Message != "lost update: counter is 1" {
		t.Fatalf("findings %+v", found)
	}
	if pos := lu.Goroutines[0].Pos; pos != "lu/lu_test.go:17" {
		t.Errorf("assertion at %v, want lu/lu_test.go:17", pos)
	}
	for _, f := range []*result.FindingEvent{dl, lu} {
		if _, err := os.Stat(filepath.Join(dir, f.Replay)); err != nil && !filepath.IsAbs(f.Replay) {
			if _, err := os.Stat(f.Replay); err != nil {
				t.Errorf("schedule file: %v", err)
			}
		}
	}
	if ev.Result("doc") != "no test files" || ev.Result("dl") != "FAIL" {
		t.Errorf("package results: doc %q, dl %q; want doc without test files, dl failed", ev.Result("doc"), ev.Result("dl"))
	}
	if after := hashTree(t, dir); !mapsEqual(before, after) {
		t.Errorf("xbtest changed the module's files")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func mapsEqual(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestBadPackages(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		want  []string
	}{
		{"no such package", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/a.go": "package a\n"},
			[]string{"./nosuch"}, []string{"nosuch"}},
		{"compile error", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
			"a/a.go":      "package a\n\nfunc F() int {\n\treturn \"x\"\n}\n",
			"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n"},
			[]string{"./a"}, []string{"a.go:4"}},
		{"cgo", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
			"c/c.go":      "package c\n\n// int two(void) { return 2; }\nimport \"C\"\n\nfunc Two() int { return int(C.two()) }\n",
			"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) { Two() }\n"},
			[]string{"./c"}, []string{"cgo"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testkit.WriteModule(t, c.files)
			status, stdout, stderr := runIn(t, dir, c.args...)
			if status != exitError {
				t.Errorf("status %d, want 2\n%s%s", status, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
		})
	}
}

func TestPackageWithoutTests(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/a.go": "package a\n\nfunc A() {}\n"})
	status, stdout, stderr := runIn(t, dir, "./a")
	if status != exitOK || stdout != "?   \texample.com/m/a\t[no test files]\n" {
		t.Errorf("status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

// sent is what the test binary reads of o's settings: the JSON of
// XBTEST_CONFIG, decoded.
func sent(o *options) (result.RunConfig, error) {
	b, err := json.Marshal(result.RunConfig{Settings: o.s})
	if err != nil {
		return result.RunConfig{}, err
	}
	var rc result.RunConfig
	err = json.Unmarshal(b, &rc)
	return rc, err
}
