package driver

import (
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/exitblock"
	"github.com/xbtest/xbtest/scheduler/internal/sample"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// The engine and the driver reach the exploration strategy only through
// sched.Strategy, and the strategy reaches the execution only through
// sched.Engine (the engine's engine.go). newStrategy is where a
// configuration picks one.

// newStrategy returns the strategy cfg.Algorithm names; dir, if not nil,
// steers a guided execution (an engine.Guide). All the configured
// algorithms are members of the ExitBlock family (Brute is its oracle).
// cfg.Strategy orders the exploration (pb) or samples it (pct, random);
// a guided execution (dir) follows its schedule whatever the strategy,
// so schedule files do not depend on it. Under -shard a depth-first
// exploration explores only this shard's part (partition.go).
func newStrategy(cfg *engine.Config, dir sched.Director) sched.Strategy {
	var sampler sched.Sampler
	if dir == nil && !cfg.Oracle {
		sampler = samplerOf(cfg)
	}
	return partitioned(cfg, dir, exitblock.New(exitblock.Options{
		PreemptionBound: dir == nil && cfg.Strategy == settings.PB,
		Sampler:         sampler,
		// Deadlock detection (ExitBlock-DD, Brute) is the engine's
		// (deadlock.go).
		ReadWrite:       cfg.Algorithm == settings.ExitBlockRW || cfg.Algorithm == settings.ExitBlockRWDD,
		FairBlocks:      cfg.FairBlocks,
		Oracle:          cfg.Oracle,
		OracleSpawns:    cfg.OracleSpawns,
		NoSpawnBranches: cfg.NoSpawnBranches,
		Director:        dir,
	}))
}

// decision is one step of a path (sched.Decision): the engine replays,
// records and reports paths in many places, which the alias keeps short.
type decision = sched.Decision

// samplerOf returns the exploration's sampler (pct, random), made once: a
// new pass of the store buffers (package storebuf) or a restart
// goes on with the same samples count and sequence. Under -shard it runs
// the shard's share of the samples (sample.Part). nil for the tree walks.
func samplerOf(cfg *engine.Config) sched.Sampler {
	if cfg.Sampler == nil {
		part := sample.Part{Index: cfg.Shard.Index, Count: cfg.Shard.Count} // partition.go
		switch cfg.Strategy {
		case settings.Random:
			cfg.Sampler = sample.NewRandom(cfg.Seed, cfg.Samples, part)
		case settings.PCT:
			cfg.Sampler = sample.NewPCT(cfg.Seed, cfg.PCTDepth, cfg.Samples, part)
		default:
			return nil
		}
	}
	return cfg.Sampler
}
