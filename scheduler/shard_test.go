package scheduler_test

import (
	"cmp"
	"maps"
	"testing"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/internal/claims"
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

// splitProgram is a program the tests of split trees (shards, teams)
// explore whole and in parts.
type splitProgram struct {
	name string
	body func(*xb.T)
	cfg  xb.Config
}

func splitPrograms() []splitProgram {
	tso := xb.DefaultConfig()
	tso.Memory = settings.TSO
	fork := xb.DefaultConfig()
	fork.Checkpoint = settings.Fork
	return []splitProgram{
		{"perfJava 3 3", perfJava(3, 3), thesisRW()},       // 31 schedules, no finding
		{"splitSync", splitSync, xb.DefaultConfig()},       // a race
		{"deadlockWait", deadlockWait, xb.DefaultConfig()}, // a deadlock, aborted attempts
		{"splitIncrement tso", splitIncrement, tso},        // an assertion under tso, no race
		{"deadlock fork", deadlock, fork},                  // lock cycles, explored by fork
	}
}

func TestShardsAddUpToOneExploration(t *testing.T) {
	progs := splitPrograms()
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

// TestShardsAddUpUnderAnySnapshots: fork checkpoints keep branch-point
// snapshots where replaying a prefix costs more than a fork, so where
// they are varies with the machine's load; the shards must add up
// wherever they are. A child of a snapshot is redirected to the next
// start from inside the strategy's call it was forked in: the call's own
// check for a crossing, made for the path it began on, once counted a
// crossing on the replayed prefix of the new path (on a loaded machine,
// TestBaseTwoSendersBag's shard 0 of 2 counted 4,911 schedules of 4,459).
// Snapshots are placed here by a hash of the depth, the seed and how many
// branch points the process and its ancestors have offered.
func TestShardsAddUpUnderAnySnapshots(t *testing.T) {
	progs := []struct {
		name string
		body func(*xb.T)
		cut  int
	}{
		{"deadlockWait", deadlockWait, 4}, // aborted attempts, a restart
		{"perfPlain 3 2", perfPlain(3, 2), 2},
		{"perfPlain 3 2", perfPlain(3, 2), 4},
	}
	for _, p := range progs {
		whole := explore(t, p.name, p.body, xb.DefaultConfig())
		for seed := range uint64(10) { // without the fix, seeds 2, 4 and 9 failed
			sum, aborted, got := 0, 0, map[string]int{}
			var sizes []int
			for i := range 2 {
				cfg := xb.DefaultConfig()
				offered := uint64(0)
				cfg.Backer = checkpoint.NewFork(false).SnapshotWhere(func(d, next int) bool {
					offered++
					h := seed*0x9E3779B97F4A7C15 ^ uint64(d)*0xBF58476D1CE4E5B9 ^ uint64(next+7)*0x94D049BB133111EB ^ offered*0x2545F4914F6CDD1D
					h ^= h >> 31
					h *= 0xD6E8FEB86659FD93
					h ^= h >> 29
					return h%1000 < 300
				})
				cfg.Shard = result.Shard{Index: i, Count: 2, Cut: p.cut}
				res := explore(t, p.name, p.body, cfg)
				sum += res.Schedules
				aborted += res.Aborted
				sizes = append(sizes, res.Schedules)
				for k, c := range findingCounts(res) {
					got[k] += c
				}
			}
			if sum != whole.Schedules || aborted != whole.Aborted || !maps.Equal(got, findingCounts(whole)) {
				t.Errorf("%s, cut %d, snapshots of seed %d: 2 shards explored %d schedules %v, %d aborted, findings %v; one process %d, %d, %v",
					p.name, p.cut, seed, sum, sizes, aborted, got, whole.Schedules, whole.Aborted, findingCounts(whole))
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

// TestTeamClaimsAddUp: the members of a -parallel team explore the parts
// of the tree each claimed first, whichever they are. Member 1's claims
// are made up front (a scattered third of the slots, as a member that got
// there first would leave them), member 0 then claims every other part it
// meets, and member 1 explores what it claimed: together they explore
// what one process does, alone and within a shard of -shard, re-running
// and forking.
func TestTeamClaimsAddUp(t *testing.T) {
	progs := splitPrograms()
	for _, p := range progs {
		for _, sh := range []result.Shard{{Cut: 2}, {Index: 1, Count: 2, Cut: 2}} {
			if p.cfg.Checkpoint == settings.Fork && sh.Active() {
				continue // a fork per schedule: tens of milliseconds each
			}
			base := p.cfg
			base.Shard = sh
			whole := explore(t, p.name, p.body, base)
			dir := t.TempDir()
			for gen := range 4 {
				tab, err := claims.Open(claims.Path(dir, p.name, gen))
				if err != nil {
					t.Fatal(err)
				}
				for s := range 3000 {
					if s%5 == 1 || s%7 == 0 {
						tab.Claim(s, 1)
					}
				}
				tab.Close()
			}
			sum, aborted, got, subtrees := 0, 0, map[string]int{}, []int{}
			for m := range 2 {
				cfg := base
				cfg.Team = &result.Team{Member: m, Dir: dir}
				res := explore(t, p.name, p.body, cfg)
				if len(res.Team) != 1 || res.Team[0].Schedules != res.Schedules || res.ShardLearnt != "" {
					t.Errorf("%s shard %v member %d: team %+v, learnt %q", p.name, sh, m, res.Team, res.ShardLearnt)
				}
				sum += res.Schedules
				aborted += res.Aborted
				subtrees = append(subtrees, res.Team[0].Subtrees)
				for k, c := range findingCounts(res) {
					got[k] += c
				}
			}
			if sum != whole.Schedules || aborted != whole.Aborted || !maps.Equal(got, findingCounts(whole)) {
				t.Errorf("%s shard %v: 2 members explored %d schedules, %d aborted, findings %v; one process %d, %d, %v",
					p.name, sh, sum, aborted, got, whole.Schedules, whole.Aborted, findingCounts(whole))
			}
			if p.name != "perfJava 3 3" && (subtrees[0] == 0 || subtrees[1] == 0) {
				t.Errorf("%s shard %v: subtrees explored per member %v: want both some", p.name, sh, subtrees)
			}
		}
	}
}
