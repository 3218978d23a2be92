package scheduler

import (
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// The external tests explore programs written against this package's hooks
// and drop-in types; exploring is the driver's, which they reach through
// these names.

type Config = engine.Config

func DefaultConfig() Config { return engine.DefaultConfig() }

func Explore(name string, body func(*T), cfg Config) *result.Result {
	return driver.Explore(name, body, cfg)
}

func Replay(name string, body func(*T), cfg Config, blocks []result.Block, want result.Want) *result.Result {
	return driver.Replay(name, body, cfg, blocks, want)
}

var (
	OracleConfig     = driver.OracleConfig
	ThesisConfig     = driver.ThesisConfig
	Paths            = driver.Paths
	WorstSchedule    = driver.WorstSchedule
	MinimiseSchedule = driver.MinimiseSchedule
)
