package scheduler_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// The exploration strategies (-strategy): pb walks the same tree as dfs in
// another order; pct and random sample it.

func withStrategy(cfg xb.Config, s settings.Strategy) xb.Config {
	cfg.Strategy = s
	return cfg
}

// findingKinds is the kinds and positions of res's findings, sorted.
func findingKinds(res *result.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, string(f.Kind)+" at "+f.Pos)
	}
	slices.Sort(out)
	return out
}

// TestPreemptionBoundingExploresTheDFSTree: once every level is done,
// preemption bounding has explored every branch of the ExitBlock tree once,
// so the schedule count and the findings are depth-first's, and the run is
// complete.
func TestPreemptionBoundingExploresTheDFSTree(t *testing.T) {
	progs := []struct {
		name string
		body func(*xb.T)
	}{
		{"SplitSync", splitSync}, {"NoEraser", noEraser}, {"Deadlock", deadlock}, {"Deadlock3", deadlock3},
		{"DeadlockWait", deadlockWait}, {"Fig217", fig217}, {"Fig220", fig220}, {"Fig221", fig221},
		{"Performance_3_3", perfPlain(3, 3)},
	}
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			dfs := xb.Explore(p.name, p.body, xb.DefaultConfig())
			pb := xb.Explore(p.name, p.body, withStrategy(xb.DefaultConfig(), settings.PB))
			if pb.Internal != "" || !pb.Complete || pb.PreemptionsComplete != nil {
				t.Fatalf("pb: internal %q, complete %v, preemptions complete %v", pb.Internal, pb.Complete, pb.PreemptionsComplete)
			}
			if pb.Schedules != dfs.Schedules || pb.Aborted != dfs.Aborted {
				t.Errorf("pb explored %d schedules (%d aborted), dfs %d (%d)", pb.Schedules, pb.Aborted, dfs.Schedules, dfs.Aborted)
			}
			if got, want := findingKinds(pb), findingKinds(dfs); !slices.Equal(got, want) {
				t.Errorf("pb found %v, dfs %v", got, want)
			}
		})
	}
}

// TestPreemptionBoundingReachesTheOutcomesUnderTSO: under store buffers
// (tso, pso) preemption bounding explores as many schedules as depth-first
// order and reaches the same outcomes of the litmus tests.
func TestPreemptionBoundingReachesTheOutcomesUnderTSO(t *testing.T) {
	for _, name := range []string{"SB", "MP", "n6", "2+2W"} {
		i := slices.IndexFunc(litmusTests, func(l litmus) bool { return l.name == name })
		lt := &litmusTests[i]
		for _, m := range []settings.Memory{settings.TSO, settings.PSO} {
			cfg := litConfig(xb.DefaultConfig(), m)
			want, dfs := outcomes(t, lt.name, lt.body, cfg)
			got, pb := outcomes(t, lt.name, lt.body, withStrategy(cfg, settings.PB))
			if !slices.Equal(got, want) || pb.Schedules != dfs.Schedules {
				t.Errorf("%s under %s: pb reached %v in %d schedules, dfs %v in %d", name, m, got, pb.Schedules, want, dfs.Schedules)
			}
		}
	}
}

// TestPreemptionBoundingCutShortSaysUpToWhat: SplitSync's lost update needs
// one preemption; a pb run stopped after the schedules without preemption
// is complete up to 0 preemptions and has not found it, one that goes on
// finds it first among the schedules of level 1.
func TestPreemptionBoundingCutShortSaysUpToWhat(t *testing.T) {
	full := xb.Explore("SplitSync", splitSync, withStrategy(xb.DefaultConfig(), settings.PB))
	if len(full.Findings) != 1 {
		t.Fatalf("pb: %d findings, want 1", len(full.Findings))
	}
	first := full.Findings[0].Schedule
	cfg := withStrategy(xb.DefaultConfig(), settings.PB)
	cfg.MaxSchedules = first - 1
	cut := xb.Explore("SplitSync", splitSync, cfg)
	if cut.Complete || cut.Bound != result.BoundSchedules || len(cut.Findings) != 0 {
		t.Fatalf("cut at %d schedules: complete %v, bound %q, %d findings", cfg.MaxSchedules, cut.Complete, cut.Bound, len(cut.Findings))
	}
	if k := cut.PreemptionsComplete; k == nil || *k != 0 {
		t.Errorf("cut at %d schedules: complete up to %v preemptions, want 0", cfg.MaxSchedules, k)
	}
	if got := countPreempt(full.Findings[0].Blocks); got != 1 {
		t.Errorf("the finding's schedule has %d preemptions, want 1", got)
	}
}

// sampled explores body with strategy s, seed and n samples.
func sampled(t *testing.T, name string, body func(*xb.T), s settings.Strategy, seed uint64, n int) *result.Result {
	t.Helper()
	cfg := withStrategy(xb.DefaultConfig(), s)
	cfg.Seed, cfg.Samples = seed, n
	res := xb.Explore(name, body, cfg)
	if res.Internal != "" {
		t.Fatalf("%s %s: %s", s, name, res.Internal)
	}
	if res.Complete || res.Bound != result.BoundSamples || res.Seed != seed || res.Strategy != s {
		t.Fatalf("%s %s: complete %v, bound %q, seed %d, strategy %s: a sampled run is never complete", s, name, res.Complete, res.Bound, res.Seed, res.Strategy)
	}
	return res
}

// TestSamplingIsSeededAndReplays: pct and random run exactly the samples
// asked for; the same seed finds the same first finding at the same sample
// with the same schedule; and that schedule, followed as xbtest -replay
// follows a schedule file (whatever the strategy), leads to the finding.
func TestSamplingIsSeededAndReplays(t *testing.T) {
	progs := []struct {
		name string
		body func(*xb.T)
	}{
		{"SplitSync", splitSync}, {"Deadlock", deadlock}, {"Fig220", fig220},
	}
	for _, s := range []settings.Strategy{settings.PCT, settings.Random} {
		for _, p := range progs {
			t.Run(fmt.Sprintf("%s/%s", s, p.name), func(t *testing.T) {
				a := sampled(t, p.name, p.body, s, 7, 40)
				b := sampled(t, p.name, p.body, s, 7, 40)
				if a.Schedules != 40 {
					t.Errorf("%d samples, want 40", a.Schedules)
				}
				if len(a.Findings) == 0 {
					t.Fatalf("no finding in 40 samples")
				}
				fa, fb := a.Findings[0], b.Findings[0]
				if fa.Schedule != fb.Schedule || fa.Kind != fb.Kind || fa.Pos != fb.Pos || !sameBlocks(fa.Blocks, fb.Blocks) || a.Aborted != b.Aborted {
					t.Errorf("seed 7 twice: first finding %s at %s on sample %d, then %s at %s on sample %d", fa.Kind, fa.Pos, fa.Schedule, fb.Kind, fb.Pos, fb.Schedule)
				}
				for _, f := range a.Findings {
					if f.Unreproduced != "" {
						t.Errorf("%s: %s", f.Kind, f.Unreproduced)
					}
					got := xb.Replay(p.name, p.body, xb.DefaultConfig(), f.Blocks, result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
					if out := got.Replay; !out.Reproduced || out.Diverged != "" || got.Internal != "" {
						t.Errorf("%s at %s: not reproduced: diverged %q, internal %q", f.Kind, f.Pos, out.Diverged, got.Internal)
					}
				}
			})
		}
	}
}

func sameBlocks(a, b []result.Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Goroutine != b[i].Goroutine || a[i].End != b[i].End || !slices.Equal(a[i].Choices, b[i].Choices) {
			return false
		}
	}
	return true
}

// TestStrategiesUnderFork: a test that keeps its state in package-level
// variables is explored by forked processes (fork, auto), which hand the
// strategy's state back and forth: pb still explores dfs's tree, and a
// sampling strategy the same samples as in one process.
func TestStrategiesUnderFork(t *testing.T) {
	local := func(t *xb.T) {
		names, counter := map[string]int{}, xb.New(new(int))
		registerAll(names, counter)(t)
	}
	global := func(t *xb.T) { registerAll(registry, &registered)(t) }
	// One backer each keeps the test cheap: fork hands every execution
	// back to the zygote; auto hands the root's state over once, then the
	// same.
	for s, name := range map[settings.Strategy]string{settings.PB: "fork", settings.PCT: "auto", settings.Random: "fork"} {
		cfg := withStrategy(xb.DefaultConfig(), s)
		cfg.Samples = 12
		want := xb.Explore("Local", local, cfg)
		{
			c := cfg
			c.Backer = backers()[name]()
			got := xb.Explore("Global", global, c)
			clear(registry)
			registered = 0
			if got.Internal != "" {
				t.Fatalf("%s under %s: %s", s, name, got.Internal)
			}
			if got.Schedules != want.Schedules || got.Aborted != want.Aborted || !slices.Equal(findingKinds(got), findingKinds(want)) ||
				len(got.Findings) > 0 && got.Findings[0].Schedule != want.Findings[0].Schedule {
				t.Errorf("%s under %s: %d schedules (%d aborted), findings %v; in one process %d (%d), %v",
					s, name, got.Schedules, got.Aborted, findingKinds(got), want.Schedules, want.Aborted, findingKinds(want))
			}
		}
	}
}
