package driver

import (
	"fmt"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/settings"
)

// What xbtest's own tests need of the engine beyond Explore and Replay:
// the exhaustive oracle, the thesis's algorithm without Go's additions,
// and views of the paths explored. The tests of package scheduler use them
// (through its export_test.go) to check the drop-in types under
// exploration; nothing else should.

// OracleConfig returns a configuration that enumerates every order of atomic
// blocks; with spawns, every order around go statements too.
func OracleConfig(spawns bool) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Algorithm = settings.ExitBlockDD
	cfg.Oracle, cfg.OracleSpawns = true, spawns
	return cfg
}

// ThesisConfig returns the configuration of algorithm a without the spawn
// branches xbtest adds for Go: the thesis's algorithm exactly.
func ThesisConfig(a settings.Algorithm) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Algorithm = a
	cfg.NoSpawnBranches = true
	return cfg
}

// Paths explores body under cfg and returns every complete path, as a
// string, that ended with no thread delayed, and how many paths ended with
// threads delayed.
func Paths(body func(*engine.T), cfg engine.Config) (maximal []string, partial int) {
	cfg.OnPath = func(p []decision, delayed int) {
		if delayed > 0 {
			partial++
			return
		}
		var b []byte
		for _, d := range p {
			b = fmt.Appendf(b, "%d@%d%v ", d.Thread, d.End, d.Choices)
		}
		maximal = append(maximal, string(b))
	}
	Explore("paths", body, cfg)
	return maximal, partial
}

// WorstSchedule explores body under cfg and returns, among the schedules
// that lead to a finding of kind k, the blocks of one with the most
// preemptions (the schedule minimisation should shorten most).
func WorstSchedule(name string, body func(*engine.T), cfg engine.Config, k result.Kind) []result.Block {
	var paths [][]decision
	cfg.Minimise = false
	cfg.OnFinding = func(f *engine.Finding) {
		if f.Kind == k {
			paths = append(paths, mergePath(f.Path))
		}
	}
	Explore(name, body, cfg)
	d := &driver{strat: newStrategy(&cfg, nil), known: engine.NewLearnt(), cfg: &cfg, name: name, body: body, res: &result.Result{}}
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
// exploration does before reporting it.
func MinimiseSchedule(name string, body func(*engine.T), cfg engine.Config, blocks []result.Block, k result.Kind) ([]result.Block, *result.Shortened) {
	d := &driver{strat: newStrategy(&cfg, nil), known: engine.NewLearnt(), cfg: &cfg, name: name, body: body, res: &result.Result{}}
	f, _, _ := d.follow(blocks, false, func(f *engine.Finding) int { return wantMatches(result.Want{Kind: k}, f) })
	if f == nil {
		return nil, nil
	}
	f.Blocks = blocks
	d.minimise(f)
	return f.Blocks, f.Shortened
}
