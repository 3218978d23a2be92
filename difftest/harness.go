package difftest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// The generated programs run as the xbtest command runs a package's tests:
// the package is rewritten (instrument.Prepare), its test binary built once
// with go test -c and the plan's overlay, and the binary run once per
// configuration with the command's protocol (XBTEST_CONFIG, XBTEST_RESULTS;
// see scheduler/internal/driver/runtest.go). Each execution that reaches the end of a test
// body appends its outcome to the file XBDIFF_OUTCOMES names.

// Binary is a built test binary of generated programs.
type Binary struct {
	Path  string
	Dir   string // the package directory (the binary runs there)
	Progs []*Program
}

// Build writes progs as the tests of one package of a fresh module under
// dir, rewrites and builds them.
func Build(ctx context.Context, dir string, progs []*Program) (*Binary, error) {
	mod := filepath.Join(dir, "mod")
	pkg := filepath.Join(mod, "gen")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return nil, err
	}
	files := map[string]string{
		filepath.Join(mod, "go.mod"):      "module example.com/difftest\n\ngo 1.26\n",
		filepath.Join(pkg, "gen.go"):      "// Package gen holds generated concurrent programs (xbtest's difftest).\npackage gen\n",
		filepath.Join(pkg, "gen_test.go"): testFile(progs),
	}
	for name, src := range files {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			return nil, err
		}
	}
	plan, err := instrument.Prepare(ctx, instrument.Options{
		Dir:      mod,
		Patterns: []string{"./gen"},
		CacheDir: filepath.Join(dir, "plan"),
		DepCache: "off",
	})
	if err != nil {
		return nil, fmt.Errorf("rewrite: %w", err)
	}
	if len(plan.Packages) != 1 {
		return nil, fmt.Errorf("rewrite: %d packages", len(plan.Packages))
	}
	bin := filepath.Join(dir, "gen.test")
	args := append([]string{"test", "-c", "-o", bin}, plan.BuildArgs...)
	args = append(args, plan.Packages[0].ImportPath)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), plan.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c: %v\n%s", err, out)
	}
	return &Binary{Path: bin, Dir: plan.Packages[0].Dir, Progs: progs}, nil
}

// Config is one way of exploring: an algorithm and its settings.
type Config struct {
	Algo     settings.Algorithm
	SyncDeps bool
	Access   bool // -granularity access
}

func (c Config) String() string {
	s := c.Algo.String()
	if !c.SyncDeps {
		s += "/nosyncdeps"
	}
	if c.Access {
		s += "/access"
	}
	return s
}

// Finding is what the differential test compares of a finding: its kind and
// the goroutines it names.
type Finding struct {
	Kind       result.Kind
	Goroutines string // sorted ids with their states, e.g. "T0.1:blocked T0:waiting"
}

func (f Finding) String() string { return string(f.Kind) + "(" + f.Goroutines + ")" }

// Result is what one configuration reached on one program.
type Result struct {
	Outcomes  map[string]bool
	Findings  map[Finding]bool
	Schedules int
	Complete  bool
	Problem   string // the binary said nothing of the test, or an internal error
}

// Raced reports whether a data race was reported.
func (r *Result) Raced() bool {
	for f := range r.Findings {
		if f.Kind == result.Race {
			return true
		}
	}
	return false
}

// Run explores the tests named (all of the binary's if none) under c, at
// most maxSchedules schedules each (0: no bound), and returns each test's
// result by name.
func (b *Binary) Run(ctx context.Context, tmp string, c Config, maxSchedules int, tests []string) (map[string]*Result, error) {
	base := filepath.Join(tmp, strings.ReplaceAll(c.String(), "/", "_"))
	results, outcomes := base+".jsonl", base+".outcomes"
	os.Remove(results)
	os.Remove(outcomes)
	rc := result.RunConfig{Settings: settings.Default()}
	rc.Algorithm, rc.SyncDeps, rc.MaxSchedules, rc.MaxSteps = c.Algo, c.SyncDeps, maxSchedules, 2000
	rc.Watchdog, rc.Checkpoint, rc.Minimise = 10*time.Second, settings.Rerun, false
	if c.Access {
		rc.Granularity = settings.Access
	}
	if err := rc.Normalize(); err != nil {
		return nil, err
	}
	env, err := result.Env(rc, results, tmp)
	if err != nil {
		return nil, err
	}
	args := []string{"-test.timeout=0", "-test.count=1"}
	if len(tests) > 0 {
		args = append(args, "-test.run=^("+strings.Join(tests, "|")+")$")
	}
	cmd := exec.CommandContext(ctx, b.Path, args...)
	cmd.Dir = b.Dir
	cmd.Env = append(append(os.Environ(), env...), "XBDIFF_OUTCOMES="+outcomes)
	cmd.WaitDelay = 5 * time.Second
	out, runErr := cmd.CombinedOutput()
	res := map[string]*Result{}
	get := func(test string) *Result {
		r := res[test]
		if r == nil {
			r = &Result{Outcomes: map[string]bool{}, Findings: map[Finding]bool{}}
			res[test] = r
		}
		return r
	}
	if err := readLines(results, func(line string) error {
		var l result.Line
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return fmt.Errorf("%s: %q: %v", results, line, err)
		}
		if l.Event != result.LineSummary || l.Result == nil {
			return nil
		}
		r := get(l.Test)
		r.Schedules, r.Complete = l.Result.Schedules, l.Result.Complete
		if l.Result.Internal != "" {
			r.Problem = l.Result.Internal
		}
		for _, f := range l.Result.Findings {
			r.Findings[summarize(f)] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readLines(outcomes, func(line string) error {
		test, o, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%s: %q", outcomes, line)
		}
		get(test).Outcomes[o] = true
		return nil
	}); err != nil {
		return nil, err
	}
	want := tests
	if len(want) == 0 {
		for _, p := range b.Progs {
			want = append(want, p.Name)
		}
	}
	for _, t := range want {
		if r := get(t); r.Schedules == 0 && r.Problem == "" {
			r.Problem = fmt.Sprintf("no summary from the test binary (%v)\n%s", runErr, tail(string(out), 2000))
		}
	}
	return res, nil
}

// summarize keeps of a finding what must not depend on the algorithm: its
// kind and the goroutines involved with their states.
func summarize(f *result.Finding) Finding {
	var gs []string
	for _, g := range f.Goroutines {
		gs = append(gs, g.ID+":"+g.State)
	}
	sortStrings(gs)
	return Finding{Kind: f.Kind, Goroutines: strings.Join(gs, " ")}
}

func readLines(path string, f func(string) error) error {
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if err := f(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
