package driver

import (
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/exitblock"
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
// Under -shard it explores only this shard's part (partition.go).
func newStrategy(cfg *engine.Config, dir sched.Director) sched.Strategy {
	return partitioned(cfg, dir, exitblock.New(exitblock.Options{
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
