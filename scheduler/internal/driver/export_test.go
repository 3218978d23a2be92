package driver

import (
	"time"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
)

// What the driver's external tests (minimise_test.go) need beyond Explore
// and Replay, and cannot build from them: the schedule that shortening
// should shorten most, and shortening on its own.

// WorstSchedule explores body under cfg and returns, among the schedules
// that lead to a finding of kind k, the blocks of one with the most
// preemptions (the schedule minimisation should shorten most).
func WorstSchedule(name string, body func(*testingobj.T), cfg engine.Config, k result.Kind) []result.Block {
	var paths [][]decision
	cfg.Minimise = false
	cfg.OnFinding = func(f *engine.Finding) {
		if f.Kind == k {
			paths = append(paths, mergePath(f.Path))
		}
	}
	Explore(name, body, cfg)
	d := &driver{strat: newStrategy(&cfg, nil), known: engine.NewLearnt(), cfg: &cfg, name: name, body: testingobj.Body(body), res: &result.Result{}}
	// The most switches between goroutines, then the longest: traced once.
	var most []decision
	for _, p := range paths {
		if len(p) > len(most) {
			most = p
		}
	}
	_, bs := d.trace(most)
	return bs
}

// MinimiseSchedule shortens a schedule leading to a finding of kind k as
// exploration does before reporting it, trying candidates for at most
// within.
func MinimiseSchedule(name string, body func(*testingobj.T), cfg engine.Config, blocks []result.Block, k result.Kind, within time.Duration) ([]result.Block, *result.Shortened) {
	d := &driver{strat: newStrategy(&cfg, nil), known: engine.NewLearnt(), cfg: &cfg, name: name, body: testingobj.Body(body), res: &result.Result{}}
	f, _, _ := d.follow(blocks, false, func(f *engine.Finding) int { return wantMatches(result.Want{Kind: k}, f) })
	if f == nil {
		return nil, nil
	}
	f.Blocks = blocks
	d.minimise(f, time.Now().Add(within))
	return f.Blocks, f.Shortened
}
