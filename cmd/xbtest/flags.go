package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/internal/buildcache"
	"github.com/xbtest/xbtest/internal/shardenv"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// options are the command's settings.
type options struct {
	run        string
	verbose    bool
	json       bool
	s          settings.Settings // the exploration settings, normalised
	out        string
	instrument []string
	instrDeps  bool // -instrument-deps
	tags       []string
	replay     string // -replay: a schedule file to follow
	trace      string // -trace: where -replay writes its HTML timeline
	html       string // -html: where the run report goes
	cache      string // -cache: the build cache's directory, "off" for none
	packages   []string
	shardFlag  string       // -shard i/n
	shardCount int          // -shard-count n
	shard      result.Shard // resolved from the flags and the environment (shard.go)
	parallel   int          // -parallel n
	pkgJobs    int          // -p n
}

const usage = `usage: xbtest [flags] [packages]

xbtest runs the tests of Go packages once per meaningfully different schedule
of their goroutines and reports assertion failures, panics, lock-cycle
deadlocks, condition deadlocks and leaked goroutines, each with a schedule
file that replays it. Packages are named as for go test (default ".").

Flags (one or two dashes, as you like):
`

func newFlagSet(o *options, w io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("xbtest", pflag.ContinueOnError)
	fs.SetOutput(w)
	fs.SortFlags = false
	def := settings.Default()
	s := &o.s
	fs.StringVar(&o.run, "run", "", "explore only the tests whose names match this regular expression, as go test -run")
	fs.BoolVarP(&o.verbose, "v", "v", false, "verbose: diagnostics of the rewrite and the build, logs of passing tests")
	fs.BoolVar(&o.json, "json", false, "print one JSON object per line (findings and summaries) instead of text")
	fs.TextVar(&s.Algorithm, "algo", def.Algorithm, "exploration algorithm `name`: exitblock, exitblock-rw, exitblock-dd or exitblock-rwdd; brute explores every interleaving of synchronization operations with no pruning (the reference the others are checked against: slow)")
	fs.BoolVar(&s.SyncDeps, "sync-deps", def.SyncDeps, "count lock, channel, cond and atomic operations as writes to their object (false: the thesis's exact ExitBlock-RW)")
	fs.TextVar(&s.Race, "race", def.Race, "race detection `mode` on every explored schedule: hb (data races as the Go memory model defines them: conflicting accesses unordered by happens-before), lockset (pure Eraser: accesses under no common lock) or off")
	fs.TextVar(&s.Memory, "memory", def.Memory, "memory `model`: sc, tso (x86-TSO: a FIFO store buffer per goroutine) or pso (a FIFO per goroutine and address); tso and pso imply -granularity access")
	fs.TextVar(&s.CAS, "cas", def.CAS, "what a compare-and-swap `orders` under -memory pso: full (it drains the store buffers, as every sync/atomic operation in Go) or relaxed (only the goroutine's stores to the same address: the no-barrier CAS of a hardware model, Ugawa et al. OOPSLA 2017, not Go's semantics); sc and tso ignore it")
	fs.TextVar(&s.Granularity, "granularity", def.Granularity, "block boundaries at `granularity`: sync (synchronization operations, the thesis's) or access (every shared memory access too)")
	fs.TextVar(&s.Strategy, "strategy", def.Strategy, "exploration `order`: dfs (depth-first over the whole tree: exhaustive when it finishes); pb (iterative preemption bounding over the same tree: every schedule with 0 preemptions, then 1, then 2 ...; when it finishes it has explored exactly what dfs explores, and cut short it says up to how many preemptions it is complete); pct (probabilistic concurrency testing, Burckhardt et al. 2010: random goroutine priorities and -pct-depth minus 1 priority change points; a bug of depth d among n goroutines and k steps is found with probability at least 1/(n k^(d-1)) per sample); random (a random walk, uniform at every choice point). pct and random sample: never complete, seeded by -seed")
	fs.Uint64Var(&s.Seed, "seed", def.Seed, "seed of -strategy pct and random (the summary prints it; the same seed explores the same samples)")
	fs.IntVar(&s.Samples, "samples", def.Samples, "with -strategy pct or random: stop a test after this many samples (0: until -max-schedules or -timeout, one of which is then needed)")
	fs.IntVar(&s.PCTDepth, "pct-depth", def.PCTDepth, "with -strategy pct: the bug depth d it targets (d-1 priority change points per sample)")
	fs.IntVar(&s.MaxSchedules, "max-schedules", def.MaxSchedules, "stop exploring a test after this many schedules (0: no bound)")
	fs.Int64Var(&s.MaxSteps, "max-steps", def.MaxSteps, "stop a goroutine after this many scheduling steps (hook calls) in one schedule, once a second goroutine exists, and report it as possibly non-terminating if nothing else could have run, no timer that might end it was pending and it polled a few words (0: no bound)")
	fs.IntVar(&s.FairBlocks, "fair-blocks", def.FairBlocks, "fairness: a goroutine that polls (this many atomic blocks in a row ending at the same synchronization objects while another goroutine could run) gives way, as Go's preemptive scheduler makes it (0: never; polling loops then never end)")
	fs.TextVar(&s.Timers, "timers", def.Timers, "`when` a due timer fires: synctest (only when no goroutine can run, as under testing/synctest), eager (at any scheduling point, ahead of goroutines that could run), or a duration D (eagerly if due within D of the virtual now, else as synctest)")
	fs.DurationVar(&s.Timeout, "timeout", def.Timeout, "stop exploring a test after this long (0: no bound)")
	fs.BoolVar(&s.Stop, "stop", def.Stop, "stop exploring a test at its first finding")
	fs.StringVarP(&o.out, "o", "o", "xbtest-out", "directory for schedule files")
	fs.StringSliceVar(&o.instrument, "instrument", nil, "also rewrite these packages (patterns, comma-separated), e.g. third-party code that starts goroutines")
	fs.BoolVar(&o.instrDeps, "instrument-deps", true, "also rewrite every package of other modules in the build whose code starts goroutines or synchronizes (rewrites of the module cache's modules are cached); false: only the tested packages' modules and -instrument")
	fs.StringSliceVar(&o.tags, "tags", nil, "build tags, as go test -tags")
	fs.DurationVar(&s.Watchdog, "watchdog", def.Watchdog, "report a goroutine that runs this long without reaching a scheduling point (blocked in code xbtest does not control)")
	fs.TextVar(&s.Checkpoint, "checkpoint", def.Checkpoint, "`how` exploration backs up: auto (re-run the test body while it leaves package-level state unchanged and replaying is cheaper than forking, fork otherwise), rerun (re-run the test body in process; stops when a schedule changes package-level state) or fork (fork a snapshot of the process before the body, and at branch points that are expensive to reach)")
	fs.StringVar(&o.replay, "replay", "", "re-run exactly the schedule of this file (written for each finding); package, test and settings come from the file")
	fs.StringVar(&o.trace, "trace", "", "with -replay: write an HTML timeline of the schedule to this file")
	fs.StringVar(&o.cache, "cache", "", "`dir`ectory of the build cache, which keeps the rewritten test binaries of unchanged packages for the next run (default $XBTEST_CACHE, else xbtest/build in the user cache directory; bounded by $XBTEST_CACHE_MAX bytes, default 4G); off: none")
	fs.StringVar(&o.html, "html", "", "write a report of the whole run to this HTML file: every package and test, the findings with their timelines, on the corpus the comparison with its manifest")
	fs.StringVar(&o.shardFlag, "shard", "", "explore only part `i/n` of each test's schedule tree (0 <= i < n): n such runs together explore what one run does, and xbtest merge adds up their -json output; default from Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS or Kubernetes's JOB_COMPLETION_INDEX")
	fs.IntVar(&o.shardCount, "shard-count", 0, "the number of shards when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; or set XBTEST_SHARD_COUNT)")
	fs.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "explore a package's tests, and each test's schedule tree, with up to `n` processes at once: the tests side by side, each explored by the process that claims it first; once none is left to start, a test past 100 schedules (or 0.25 s) in one process is joined by more, each taking the next part of the tree none has taken (pct and random: explored again by n, which split the samples); counts and findings are those of one process. Not go test's -parallel, which bounds the parallel subtests run at once: xbtest explores every interleaving of parallel subtests whatever this is")
	fs.IntVarP(&o.pkgJobs, "p", "p", runtime.GOMAXPROCS(0), "build and explore `n` packages at once, as go test -p does (each with its -parallel processes); packages are reported in order, as go test prints them")
	s.Minimise = def.Minimise
	return fs
}

// longFlags are the flags go test users write with one dash.
func longFlags(fs *pflag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { m[f.Name] = true })
	return m
}

// normalize lets go test habits work with pflag: "-run x" and "-run=x" are
// read as "--run x". A single dash followed by one letter stays a
// shorthand; "-10" stays a (negative) value.
func normalize(args []string, long map[string]bool) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, _, _ := strings.Cut(a[1:], "=")
			if c := name[0]; long[name] || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

var errHelp = errors.New("help requested")

// parseFlags parses and checks the command line.
func parseFlags(args []string, w io.Writer) (*options, error) {
	o := &options{}
	fs := newFlagSet(o, w)
	fs.Usage = func() {
		fmt.Fprint(w, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(normalize(args, longFlags(fs))); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err
	}
	o.packages = fs.Args()
	if o.trace != "" && o.replay == "" {
		return nil, errors.New("-trace needs -replay")
	}
	if o.html != "" && o.replay != "" {
		return nil, errors.New("-html reports a run; with -replay, -trace writes the timeline")
	}
	if o.html != "" {
		// Found out now, not after the run.
		if st, err := os.Stat(filepath.Dir(o.html)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("-html %s: no directory %s to write it in", o.html, filepath.Dir(o.html))
		}
	}
	if o.replay != "" && len(o.packages) > 0 {
		return nil, errors.New("-replay takes the package from the schedule file: name no packages")
	}
	if len(o.packages) == 0 {
		o.packages = []string{"."}
	}
	if o.s.Strategy.Samples() && o.s.Samples == 0 && o.s.MaxSchedules == 0 && o.s.Timeout == 0 && o.replay == "" {
		return nil, fmt.Errorf("-strategy %s samples schedules without end: give -samples, -max-schedules or -timeout", o.s.Strategy)
	}
	if o.s.Algorithm == settings.Brute && o.s.Strategy != settings.DFS {
		return nil, fmt.Errorf("-algo brute is the exhaustive reference: it explores in dfs order, not -strategy %s", o.s.Strategy)
	}
	if o.s.Strategy == settings.PCT && o.s.PCTDepth < 1 {
		return nil, errors.New("-pct-depth must be at least 1")
	}
	if err := o.s.Normalize(); err != nil {
		return nil, err
	}
	if o.parallel < 1 {
		return nil, fmt.Errorf("-parallel %d: must be at least 1", o.parallel)
	}
	if o.pkgJobs < 1 {
		return nil, fmt.Errorf("-p %d: must be at least 1", o.pkgJobs)
	}
	sh, err := shardenv.Resolve(o.shardFlag, o.shardCount, os.Getenv)
	if err != nil {
		return nil, err
	}
	o.shard = sh
	if o.cache == "" {
		dir, err := buildcache.DefaultDir()
		if err != nil {
			return nil, err
		}
		o.cache = dir
	}
	if o.cache == buildcache.Off {
		o.cache = ""
	}
	return o, nil
}

// apiOptions are the options of the Go API for the command line's
// settings.
func (o *options) apiOptions(log *zap.Logger) xbtest.Options {
	return xbtest.Options{
		Packages:         o.packages,
		Run:              o.run,
		Settings:         o.s,
		Tags:             o.tags,
		Instrument:       o.instrument,
		NoInstrumentDeps: !o.instrDeps,
		OutDir:           o.out,
		BuildCache:       o.cache,
		Log:              log,
		Timelines:        o.html != "",
		Shard:            o.shard,
		Parallel:         o.parallel,
		ParallelPackages: o.pkgJobs,
	}
}
