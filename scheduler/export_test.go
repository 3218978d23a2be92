package scheduler

import (
	"fmt"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/driver"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
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

// OracleConfig returns a configuration that enumerates every order of atomic
// blocks; with spawns, every order around go statements too.
func OracleConfig(spawns bool) Config {
	cfg := DefaultConfig()
	cfg.Algorithm = settings.ExitBlockDD
	cfg.Oracle, cfg.OracleSpawns = true, spawns
	return cfg
}

// ThesisConfig returns the configuration of algorithm a without the spawn
// branches xbtest adds for Go: the thesis's algorithm exactly.
func ThesisConfig(a settings.Algorithm) Config {
	cfg := DefaultConfig()
	cfg.Algorithm = a
	cfg.NoSpawnBranches = true
	return cfg
}

// Paths explores body under cfg and returns every complete path, as a
// string, that ended with no thread delayed, and how many paths ended with
// threads delayed.
func Paths(body func(*T), cfg Config) (maximal []string, partial int) {
	cfg.OnPath = func(p []sched.Decision, delayed int) {
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
	driver.Explore("paths", body, cfg)
	return maximal, partial
}
