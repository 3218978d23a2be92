package scheduler_test

import (
	"cmp"
	"maps"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/scheduler/internal/shard"
	"github.com/xbtest/xbtest/settings"
)

// Sharding (scheduler/internal/shard): the shards of one exploration
// explore exactly what one process does, whatever their number and the
// depth of the split, also when forked processes hand the exploration
// back and forth.

// findingCounts are a result's findings as the command tells them apart
// (kind and position), with the executions that showed them.
func findingCounts(res *result.Result) map[string]int {
	m := map[string]int{}
	for _, f := range res.Findings {
		m[string(f.Kind)+"@"+f.Pos] += f.Count
	}
	return m
}

func TestShardsAddUpToOneExploration(t *testing.T) {
	tso := xb.DefaultConfig()
	tso.Memory = settings.TSO
	fork := xb.DefaultConfig()
	fork.Checkpoint = settings.Fork
	progs := []struct {
		name string
		body func(*xb.T)
		cfg  xb.Config
	}{
		{"perfJava 3 3", perfJava(3, 3), thesisRW()},       // 31 schedules, no finding
		{"splitSync", splitSync, xb.DefaultConfig()},       // a race
		{"deadlockWait", deadlockWait, xb.DefaultConfig()}, // a deadlock, aborted attempts
		{"splitIncrement tso", splitIncrement, tso},        // an assertion under tso, no race
		{"deadlock fork", deadlock, fork},                  // lock cycles, explored by fork
	}
	for _, p := range progs {
		whole := explore(t, p.name, p.body, p.cfg)
		want := findingCounts(whole)
		if len(want) == 0 && p.name != "perfJava 3 3" {
			t.Fatalf("%s: no finding", p.name)
		}
		for _, n := range []int{2, 3} {
			for _, cut := range []int{1, 3, 0} {
				if p.cfg.Checkpoint == settings.Fork && (n == 3 || cut == 3) {
					continue // a fork per schedule: tens of milliseconds each
				}
				sum, aborted, got := 0, 0, map[string]int{}
				var sizes []int
				for i := range n {
					cfg := p.cfg
					cfg.Shard = result.Shard{Index: i, Count: n, Cut: cut}
					res := explore(t, p.name, p.body, cfg)
					if res.Shard == nil || *res.Shard != (result.Shard{Index: i, Count: n, Cut: cmp.Or(cut, shard.DefaultCut)}) || res.ShardLearnt != "" {
						t.Errorf("%s shard %d/%d cut %d: result says shard %v, learnt %q", p.name, i, n, cut, res.Shard, res.ShardLearnt)
					}
					sum += res.Schedules
					aborted += res.Aborted
					sizes = append(sizes, res.Schedules)
					for k, c := range findingCounts(res) {
						got[k] += c
					}
				}
				if sum != whole.Schedules || aborted != whole.Aborted || !maps.Equal(got, want) {
					t.Errorf("%s, %d shards, cut %d: %d schedules %v, %d aborted, findings %v; one process: %d, %d, %v",
						p.name, n, cut, sum, sizes, aborted, got, whole.Schedules, whole.Aborted, want)
				}
			}
		}
	}
}

// TestShardLearningItsOwnIsReported: a pass of the store buffers that
// learns a racy word in a shard's own subtree is said in that shard's
// result: the others do not know it, and their parts do not add up.
func TestShardLearningItsOwnIsReported(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.Memory = settings.TSO
	whole := explore(t, "nestedSB", nestedSBFails, cfg)
	sum, learnt := 0, 0
	for i := range 2 {
		c := cfg
		c.Shard = result.Shard{Index: i, Count: 2, Cut: 1}
		res := explore(t, "nestedSB", nestedSBFails, c)
		sum += res.Schedules
		if res.ShardLearnt != "" {
			learnt++
		}
	}
	if learnt == 0 && sum != whole.Schedules {
		t.Errorf("2 shards explored %d schedules, one process %d, and no shard says it learnt something the other did not", sum, whole.Schedules)
	}
	t.Logf("one process %d schedules, 2 shards %d, %d shard(s) learnt on their own", whole.Schedules, sum, learnt)
}

// Under pct and random the shards split the samples (sample i to shard i
// mod n, each sample seeded by the seed and i): each runs its share, and
// together they run exactly one process's samples, with its aborted
// attempts and findings.
func TestShardsSplitSamples(t *testing.T) {
	progs := []struct {
		name string
		body func(*xb.T)
	}{
		{"splitSync", splitSync},
		{"deadlockWait", deadlockWait}, // aborted attempts
	}
	for _, s := range []settings.Strategy{settings.PCT, settings.Random} {
		for _, p := range progs {
			cfg := withStrategy(xb.DefaultConfig(), s)
			cfg.Seed, cfg.Samples = 3, 30
			whole := xb.Explore(p.name, p.body, cfg)
			want := findingCounts(whole)
			if whole.Schedules != 30 || len(want) == 0 || whole.Internal != "" {
				t.Fatalf("%s %s: %d samples, findings %v, internal %q", s, p.name, whole.Schedules, want, whole.Internal)
			}
			for _, n := range []int{2, 3} {
				sum, aborted, got := 0, 0, map[string]int{}
				var sizes []int
				for i := range n {
					cfg := cfg
					cfg.Shard = result.Shard{Index: i, Count: n}
					res := xb.Explore(p.name, p.body, cfg)
					if res.Internal != "" || res.ShardLearnt != "" || res.Bound != result.BoundSamples {
						t.Errorf("%s %s shard %d/%d: internal %q, learnt %q, bound %q", s, p.name, i, n, res.Internal, res.ShardLearnt, res.Bound)
					}
					if share := (30 - i + n - 1) / n; res.Schedules != share {
						t.Errorf("%s %s shard %d/%d: %d samples, want its share %d", s, p.name, i, n, res.Schedules, share)
					}
					if share := (30 - i + n - 1) / n; res.Schedules != share {
						t.Errorf("%s %s shard %d/%d: %d samples, want its share %d", s, p.name, i, n, res.Schedules, share)
					}
					sum += res.Schedules
					aborted += res.Aborted
					sizes = append(sizes, res.Schedules)
					for k, c := range findingCounts(res) {
						got[k] += c
					}
				}
				if sum != whole.Schedules || aborted != whole.Aborted || !maps.Equal(got, want) {
					t.Errorf("%s %s, %d shards: %d samples %v, %d aborted, findings %v; one process: %d, %d, %v",
						s, p.name, n, sum, sizes, aborted, got, whole.Schedules, whole.Aborted, want)
				}
			}
		}
	}
}
