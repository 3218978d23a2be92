package scheduler

import (
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// The external tests explore programs written against this package's hooks
// and drop-in types; exploring is the engine's, which they reach through
// these names.

type Config = engine.Config

func DefaultConfig() Config { return engine.DefaultConfig() }

func Explore(name string, body func(*T), cfg Config) *result.Result {
	return engine.Explore(name, body, cfg)
}

func Replay(name string, body func(*T), cfg Config, blocks []result.Block, want result.Want) *result.Result {
	return engine.Replay(name, body, cfg, blocks, want)
}

var (
	OracleConfig     = engine.OracleConfig
	ThesisConfig     = engine.ThesisConfig
	Paths            = engine.Paths
	WorstSchedule    = engine.WorstSchedule
	MinimiseSchedule = engine.MinimiseSchedule
)
