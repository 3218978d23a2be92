// Package xbtest is the Go API of xbtest, a systematic concurrency tester:
// what the xbtest command does, for tools that want the results rather
// than text.
//
// Run rewrites the packages a set of patterns names (package instrument:
// every synchronization operation and shared-memory access then calls the
// controlled scheduler; the user's files are never modified), builds each
// package's rewritten test binary, and runs it: the binary explores each
// test once per meaningfully different schedule of its goroutines
// (Bruening's ExitBlock family, package scheduler) and reports through a
// results file that Run reads as it grows. Each test's findings come back
// as result.Finding values, with a schedule file per finding when
// Options.OutDir is set; Replay follows such a file again.
//
//	res, err := xbtest.Run(ctx, xbtest.Options{Packages: []string{"./..."}, Settings: settings.Default()})
//
// The command cmd/xbtest is flags and printing over this package. Data
// flows one way: instrument -> build -> explore (in the test binary) ->
// result -> the caller. Nothing Run starts outlives it: every child
// process is killed and every temporary directory removed when it returns,
// also when ctx is cancelled (then the test under way reports what it
// found, and Results.Interrupted is set).
package xbtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// Options says what to explore and how.
type Options struct {
	// Dir is the directory the patterns are relative to, as the go
	// command's working directory ("": the current directory).
	Dir string
	// Packages are package patterns, as for go test (none: ".").
	Packages []string
	// Run selects the tests, as go test -run ("": all).
	Run string
	// Settings are the exploration settings; Run normalises its copy.
	Settings settings.Settings
	// Tags are build tags, as go test -tags.
	Tags []string
	// Instrument names more packages to rewrite (patterns), e.g.
	// third-party code that starts goroutines.
	Instrument []string
	// NoInstrumentDeps turns off the rewrite of the packages of other
	// modules that start goroutines or synchronize (instrument.Options).
	NoInstrumentDeps bool
	// BuildCache is the directory of the build cache, which keeps the
	// rewritten test binaries of unchanged packages from one run to the
	// next (see buildcache.go; "": none). The command's default is
	// internal/buildcache.DefaultDir. BuildCacheMax bounds its size in
	// bytes (0: $XBTEST_CACHE_MAX, else buildcache.DefaultMax).
	BuildCache    string
	BuildCacheMax int64
	// OutDir receives a schedule file per finding ("": none is written).
	// Run checks that it can write there before exploring anything.
	OutDir string
	// Shard restricts the exploration of every test to one part of its
	// schedule tree (the zero Shard: all of it); the results of all the
	// parts of a run merge into one run's (result.MergeShards, xbtest
	// merge). Schedule files name the shard.
	Shard result.Shard
	// Parallel is how many processes explore a package's tests, and each
	// test's tree, at once: lanes that run the tests side by side, and
	// members that join a big test (parallel.go); 0 or 1: one.
	Parallel int
	// ParallelPackages is how many packages are built and explored at
	// once, as go test -p (packages.go; 0: GOMAXPROCS). They are reported
	// in order all the same.
	ParallelPackages int
	// Log receives diagnostics of the rewrite, the build and the test
	// binaries (nil: none).
	Log *zap.Logger

	// The observers, each optional, are called from Run's goroutine as
	// things happen, so that a caller can print them in order.

	// Warn is told what a person should know that is not a finding: a
	// package that starts goroutines and was left unrewritten.
	Warn func(msg string)
	// Progress is told, at most every few seconds, how exploration of a
	// long test is going.
	Progress func(msg string)
	// Status, if set, is told what the run is doing as it changes: the
	// build step under way (loading, rewriting, building), and about once
	// a second how far the exploration of the test under way has got. It
	// may be called from another goroutine than Run's.
	Status func(Status)
	// Timelines: every finding carries the timeline of the replay that
	// verified it (result.Finding.Timeline), as -replay -trace draws it.
	Timelines bool
	// TestDone is called when a test has been explored (its schedule files
	// written).
	TestDone func(*Package, *Test)
	// PackageDone is called when a package is done: explored, or without
	// tests, or failed to build or to run.
	PackageDone func(*Package)
}

// Status is what a run is doing: a build step (Step), or the exploration of
// a test (Test and its figures).
type Status struct {
	Step          string // "loading packages", "rewriting 3 packages", "building P": a build step under way
	Package, Test string
	result.Progress
	Rate    float64       // schedules a second, lately
	Elapsed time.Duration // since the test started
}

// Results are what Run found.
type Results struct {
	Packages []*Package
	// Interrupted: ctx was cancelled; the packages after the first one it
	// interrupted are not reported.
	Interrupted bool
}

// Package is the outcome of one package.
type Package struct {
	ImportPath string
	Dir        string
	// NoTests: the package has no test files.
	NoTests bool
	// BuildError is the compiler's output when the rewritten package does
	// not build (explained when the package itself builds: then it is a
	// bug of xbtest's rewrite).
	BuildError string
	// Err says why the package could not be explored (not a build error).
	Err         error
	Tests       []*Test
	Interrupted bool
	Elapsed     time.Duration
	CachedBuild bool // its test binary came from the build cache
	// Examples counts the examples go test would run and xbtest does not
	// (it explores Test functions only).
	Examples int
}

// Test is the outcome of one test.
type Test struct {
	Name string
	// Result is the test binary's report; nil when the binary ended before
	// it reported (Problem says why; Found lists what it had found).
	Result  *result.Result
	Problem string
	Bound   string // without Result: the bound it was stopped for (result.BoundTime, ...), if any
	Found   []*result.Finding
	Output  string // what the test printed (the binary's -test.v output for it)
	// Files are the schedule files of Result's findings, one per finding
	// in order, when Options.OutDir is set.
	Files []ScheduleFile
	// elsewhere: a lane's report of a test another lane explores
	// (parallel.go); it never leaves the team. lane: the lane that
	// explored it (tests of the team).
	elsewhere bool
	lane      int
}

// ScheduleFile is where a finding's schedule was written, or why it was
// not.
type ScheduleFile struct {
	Path string
	Err  error
	// Missing says why no file was written for a finding that has no
	// schedule to replay (its schedule could not be replayed to describe
	// it): a file without decisions would only be refused by -replay.
	Missing string
}

// Complete reports whether the test was explored completely (or skipped).
func (t *Test) Complete() bool {
	return t.Result != nil && (t.Result.Complete || t.Result.Skipped)
}

// Findings are the test's findings: its result's, or those seen before
// its binary ended.
func (t *Test) Findings() []*result.Finding {
	if t.Result != nil {
		return t.Result.Findings
	}
	return t.Found
}

// Run explores the tests of the packages opt names. The error is for what
// stops the whole run (a bad setting, patterns the go command cannot load,
// an unwritable OutDir); what goes wrong in one package or test is in its
// result.
func Run(ctx context.Context, opt Options) (*Results, error) {
	r, err := newRunner(opt)
	if err != nil {
		return nil, err
	}
	if opt.OutDir != "" {
		if err := checkOutDir(opt.OutDir); err != nil {
			return nil, fmt.Errorf("-o %s: cannot write schedule files there: %v", opt.OutDir, err)
		}
	}
	plan, cleanup, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	for _, d := range plan.Deps {
		if d.Goroutines && !d.Rewritten {
			r.warn(fmt.Sprintf("not rewritten (it starts goroutines): %s (%s)", d.Path, d.Why))
		}
	}
	var paths []string
	for _, p := range plan.Packages {
		paths = append(paths, p.ImportPath)
	}
	r.stems = replay.Stems(paths)
	res := &Results{}
	r.exploreAll(ctx, plan, res) // packages.go
	return res, nil
}

// runner is one Run or Replay.
type runner struct {
	opt   Options
	s     settings.Settings
	dir   string
	log   *zap.Logger
	tmp   string
	stems map[string]string // import path: the stem of its schedule files
	// replaySpec is the file that passes a schedule to follow to the test
	// binary (Replay).
	replaySpec string
	cache      *runCache // nil without a build cache
}

func newRunner(opt Options) (*runner, error) {
	r := &runner{opt: opt, s: opt.Settings, dir: opt.Dir, log: opt.Log}
	if err := r.s.Normalize(); err != nil {
		return nil, err
	}
	if opt.Shard != (result.Shard{}) {
		if err := opt.Shard.Check(); err != nil {
			return nil, err
		}
	}
	if opt.Parallel < 0 {
		return nil, fmt.Errorf("-parallel %d: must be at least 1", opt.Parallel)
	}
	for _, part := range runpattern.Split(opt.Run) {
		if _, err := regexp.Compile(part); err != nil {
			return nil, fmt.Errorf("invalid -run %q: %v", opt.Run, err)
		}
	}
	if r.dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		r.dir = d
	}
	if r.log == nil {
		r.log = zap.NewNop()
	}
	if len(r.opt.Packages) == 0 {
		r.opt.Packages = []string{"."}
	}
	return r, nil
}

// prepare makes the run's temporary directory and rewrites the packages
// into it; cleanup removes both.
func (r *runner) prepare(ctx context.Context) (plan *instrument.Plan, cleanup func(), err error) {
	tmp, err := makeTemp()
	if err != nil {
		return nil, nil, err
	}
	r.tmp = tmp
	iopt := instrument.Options{
		Dir:      r.dir,
		Patterns: r.opt.Packages,
		Extra:    r.opt.Instrument,
		NoDeps:   r.opt.NoInstrumentDeps,
		Tags:     r.opt.Tags,
		Memory:   r.s.Memory,
		CacheDir: filepath.Join(tmp, "plan"),
		Log:      func(format string, a ...any) { r.log.Sugar().Debugf(format, a...) },
		Step:     func(step string) { r.status(Status{Step: step}) },
	}
	if r.cache = r.openBuildCache(ctx, iopt); r.cache != nil {
		if plan := r.cache.cachedPlan(r); plan != nil {
			return plan, func() { plan.Cleanup(); os.RemoveAll(tmp) }, nil
		}
	}
	plan, err = instrument.Prepare(ctx, iopt)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	r.cache.storePlan(r, plan)
	return plan, func() { plan.Cleanup(); os.RemoveAll(tmp) }, nil
}

func (r *runner) status(s Status) {
	if r.opt.Status != nil {
		r.opt.Status(s)
	}
}

func (r *runner) warn(msg string) {
	if r.opt.Warn != nil {
		r.opt.Warn(msg)
	}
}

// explore runs one package's tests into pkg; testDone is told of each
// test (after its schedule files are written), and adds it to pkg.
func (r *runner) explore(ctx context.Context, plan *instrument.Plan, p instrument.Package, pkg *Package, testDone func(*Test)) {
	run, err := r.runPackage(ctx, plan, p, func(t *Test) {
		r.writeSchedules(p, t)
		testDone(t)
	})
	if err != nil {
		pkg.Err = err
		pkg.Interrupted = ctx.Err() != nil
		return
	}
	pkg.BuildError, pkg.Interrupted, pkg.Elapsed = run.buildErr, run.interrupted, run.elapsed
	pkg.CachedBuild = r.cache.hit(p.ImportPath)
}

// writeSchedules writes a schedule file for each of t's findings, and
// removes the files of findings an earlier run had and this one has not.
func (r *runner) writeSchedules(p instrument.Package, t *Test) {
	if r.opt.OutDir == "" || t.Result == nil || r.replaySpec != "" {
		return
	}
	stem := r.stems[p.ImportPath]
	if sh := r.opt.Shard; sh.Active() {
		// Shards of one run write to the same directory, or merge theirs.
		stem += fmt.Sprintf(".shard%dof%d", sh.Index, sh.Count)
	}
	for i, f := range t.Result.Findings {
		if len(f.Blocks) == 0 {
			why := f.Unreproduced
			if why == "" {
				why = "no schedule was recorded"
			}
			t.Files = append(t.Files, ScheduleFile{Missing: "none (" + why + ")"})
			if _, err := replay.Remove(r.opt.OutDir, stem, p.ImportPath, t.Name, i+1); err != nil {
				r.warn(fmt.Sprintf("removing an old schedule file: %v", err))
			}
			continue
		}
		s := &replay.Schedule{
			Package:   p.ImportPath,
			Dir:       r.dir,
			Test:      t.Name,
			Flags:     replay.Flags{Semantics: t.Result.Semantics, Tags: r.opt.Tags, Instrument: r.opt.Instrument},
			Finding:   replay.Finding{Want: f.Want(), Schedule: f.Schedule},
			Shortened: f.Shortened,
			Env:       replay.CurrentEnv(max(t.Result.GOMAXPROCS, 1)),
			Decisions: f.Blocks,
		}
		path, err := replay.Write(r.opt.OutDir, stem, s, i+1)
		if err != nil {
			path = ""
		}
		t.Files = append(t.Files, ScheduleFile{Path: path, Err: err})
	}
	if t.Result.Complete && t.Result.Internal == "" {
		if _, err := replay.Prune(r.opt.OutDir, stem, p.ImportPath, t.Name, len(t.Result.Findings)); err != nil {
			r.warn(fmt.Sprintf("removing old schedule files: %v", err))
		}
	}
}

// checkOutDir makes sure schedule files can be written to dir before any
// exploration, rather than report a file that was never written.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".xbtest-probe-")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// makeTemp makes the directory that holds everything a run writes besides
// its schedule files: the rewritten files, go's build directory (GOTMPDIR),
// results. Its name carries the pid, so that a later run can remove the
// directory of a command that was killed outright (SIGKILL), which could not
// clean up after itself.
func makeTemp() (string, error) {
	if old, _ := filepath.Glob(filepath.Join(os.TempDir(), "xbtest-run-*-*")); len(old) > 0 {
		for _, dir := range old {
			f := strings.Split(filepath.Base(dir), "-")
			if pid, err := strconv.Atoi(f[2]); err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
				os.RemoveAll(dir)
			}
		}
	}
	return os.MkdirTemp("", "xbtest-run-"+strconv.Itoa(os.Getpid())+"-")
}
