package driver

import (
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// preemptionBounded is the explorer under -strategy pb: up to how many
// preemptions the exploration so far is complete (exitblock, pb.go).
type preemptionBounded interface {
	CompleteUpTo() (k int, bounded bool)
}

// noteStrategy says in res what strat, the strategy cfg configured, proved:
// a sampling strategy is never complete; preemption bounding cut short is
// complete up to some number of preemptions.
func noteStrategy(res *result.Result, cfg *engine.Config, strat sched.Strategy) {
	res.Strategy = cfg.Strategy
	if cfg.Strategy.Samples() {
		res.Seed = cfg.Seed
		if res.Complete {
			res.Complete, res.Bound = false, result.BoundSamples
		}
		return
	}
	if cfg.Strategy != settings.PB || res.Complete {
		return
	}
	if b := res.Bound; b == "" || b == result.BoundSteps || b == result.BoundError {
		// A goroutine stopped at -max-steps, or an error: the schedules
		// explored are not the tree's, whatever the level.
		return
	}
	if pb, ok := strat.(preemptionBounded); ok {
		if k, bounded := pb.CompleteUpTo(); bounded && k >= 0 {
			res.PreemptionsComplete = &k
		}
	}
}
