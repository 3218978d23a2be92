package driver

import (
	"fmt"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/shard"
	"github.com/xbtest/xbtest/settings"
)

// Sharding (-shard i/n, -parallel): the strategy is wrapped so that it
// explores one part of the schedule tree (package shard says how the tree
// is split and why the parts add up; under -parallel the members of a
// team claim the parts of the shard's, team.go), and the driver counts only the
// executions that are this shard's: the others' run too (the top of the
// tree, which every shard runs), but their schedules, aborted attempts and
// findings are left to the shard that counts them. A sampling strategy
// (pct, random) splits its samples instead (sample.Part: shard i of n runs
// samples i, i+n...; every shard also runs sample 0, counted by shard 0).
// Preemption bounding is not split: its order is not a depth-first one,
// so shard 0 explores the whole tree and the other shards nothing.

// partitioned restricts s to cfg.Shard's part. A guided execution follows
// its schedule whatever the part. Only a depth-first exploration is split
// by package shard: pb's order is not the same tree met in the same order,
// and a sampler splits its samples itself (samplerOf).
func partitioned(cfg *engine.Config, dir sched.Director, s sched.Strategy) sched.Strategy {
	if dir != nil || !cfg.Shard.Active() && cfg.Team == nil {
		return s
	}
	stack, ok := s.(shard.Stack)
	if !ok || cfg.Strategy != settings.DFS {
		return s // pb: shard 0 explores it all (shardIdle); samples: samplerOf
	}
	return shard.Wrap(s, stack, shard.Options{Index: cfg.Shard.Index, Count: max(cfg.Shard.Count, 1), Cut: cfg.Shard.Cut, Claim: cfg.Claim})
}

// shardIdle reports whether this shard has nothing to explore: the
// strategy is one whose exploration is not split (pb), so shard 0
// explores it all, and the parts still add up.
func (d *driver) shardIdle() bool {
	if !d.cfg.Shard.Active() || d.cfg.Strategy.Samples() {
		return false
	}
	if _, ok := d.strat.(*shard.Strategy); ok {
		return false
	}
	if d.cfg.Shard.Index != 0 {
		d.Note(fmt.Sprintf("shard %s: the strategy's exploration cannot be split; shard 0 explores all of it", d.cfg.Shard))
		return true
	}
	d.Note(fmt.Sprintf("shard %s: the strategy's exploration cannot be split; this shard explores all of it", d.cfg.Shard))
	return false
}

// shardCounts reports whether this shard counts the execution that just
// ended (aborted: at a failed lock enter).
func (d *driver) shardCounts(aborted bool) bool {
	if w, ok := d.strat.(*shard.Strategy); ok {
		return w.Ended(aborted)
	}
	if d.cfg.Shard.Active() && d.cfg.Sampler != nil {
		return d.cfg.Sampler.Counts()
	}
	return true
}

// noteShardLearnt notes that the execution that just ended, in this
// shard's own part of the tree (or one of its own samples), taught the
// exploration something (before: how much it knew before): the other
// shards do not know it, so their trees are not this one's (package
// shard).
func (d *driver) noteShardLearnt(before int) {
	if d.known.Size() == before || d.shardLearnt != "" {
		return
	}
	w, ok := d.strat.(*shard.Strategy)
	own := ok && w.Partitioned()
	if s, ok := d.cfg.Sampler.(interface{ Index() int }); ok && d.cfg.Shard.Active() {
		own = s.Index() != 0 // every shard runs sample 0
	}
	if !own {
		return
	}
	tried, mixed, racy := d.known.Counts()
	d.shardLearnt = fmt.Sprintf("on schedule %d of its own part it learnt where blocks must end (%d lock(s) some TryLock tries, %d RWMutex(es) locked both ways, %d racy word(s) under %s): the other shards explored without knowing it",
		d.stats.Schedules, tried, mixed, racy, d.cfg.Memory)
}

// shardResult says in res which part was explored.
func (d *driver) shardResult(res *result.Result) {
	if w, ok := d.strat.(*shard.Strategy); ok {
		d.team.result(res, w.Claimed(), w.Skipped(), d.shardLearnt) // team.go
	}
	if !d.cfg.Shard.Active() {
		return
	}
	sh := d.cfg.Shard
	if sh.Cut == 0 {
		sh.Cut = shard.DefaultCut
	}
	res.Shard = &sh
	res.ShardLearnt = d.shardLearnt
	if w, ok := d.strat.(*shard.Strategy); ok {
		d.Note(fmt.Sprintf("shard %s: %d subtree(s) below the %d-th branching node of a path left to the other shards", sh, w.Skipped(), sh.Cut))
	}
}
