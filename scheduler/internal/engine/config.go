package engine

import (
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// Config controls the exploration of one test.
type Config struct {
	// Settings are the exploration settings (package settings). Explore
	// normalises its copy (settings.Semantics.Normalize).
	settings.Settings
	// Backer is how exploration backs up to a branch point; nil: the one
	// Settings.Checkpoint names (BackerFor).
	Backer checkpoint.Backer
	// Trace makes every execution record positions (slow; used to replay a
	// finding for its report).
	Trace bool
	// Timelines: a finding whose schedule is verified carries the
	// replay's timeline (result.Finding.Timeline).
	Timelines bool
	// Progress, if set, is called about once a second during exploration
	// with how far it has got (its Test is left empty).
	Progress func(result.Progress)
	// Found, if set, is called with each distinct finding when exploration
	// first sees it, before it is described (its schedule is replayed and
	// shortened at the end): what a crash or a kill must not lose. It may
	// run in a forked process.
	Found func(f *result.Finding)
	// Describing, if set, is called when exploration is over and the
	// findings are about to be replayed to describe them.
	Describing func()
	// DescribeUntil, if set, ends a guided or traced execution (the
	// driver's replay, shortening and verifying of a finding's schedule)
	// still running at that time, as a bound (EndBound), so that
	// describing ends within the command's grace.
	DescribeUntil time.Time
	// Shard restricts the exploration to one part of the schedule tree
	// (the driver's partition.go); the zero value explores all of it.
	Shard result.Shard
	// Team makes the process one of several that explore Shard's part
	// together (-parallel); Claim, which the driver sets, claims a part
	// of the tree for it (the driver's team.go).
	Team  *result.Team
	Claim func(slot int) bool

	// Oracle replaces the algorithm by exhaustive enumeration (tests only):
	// at every block end, and with OracleSpawns at every go statement too,
	// each other enabled thread gets a branch. It is the reference the
	// ExitBlock family is checked against.
	Oracle, OracleSpawns bool
	// Brute adds to the oracle a branch point before every synchronization
	// operation (Algorithm Brute; see brute.go).
	Brute bool
	// NoSpawnBranches turns the spawn branches off (tests only): the
	// thesis's algorithm exactly, whose tree the oracle without spawns
	// enumerates.
	NoSpawnBranches bool
	// OnPath observes every complete path (tests only): its decisions and
	// how many threads were still delayed at its end.
	OnPath func(path []decision, delayed int)
	// OnFinding observes the first occurrence of every finding in every
	// execution (tests only).
	OnFinding func(f *Finding)
	// Sampler is the sampling strategy's sampler (pct, random), made once
	// by the driver (its strategy.go) and kept across restarts and passes.
	Sampler sched.Sampler
}

// DefaultConfig returns the configuration of `xbtest` without flags.
func DefaultConfig() Config {
	cfg := Config{Settings: settings.Default()}
	// In process, a test body is re-run (the command's default, auto,
	// forks when re-running cannot be trusted; the tests that want that
	// say so).
	cfg.Checkpoint = settings.Rerun
	return cfg
}

// BackerFor returns the checkpoint mechanism c names.
func BackerFor(c settings.Checkpoint) checkpoint.Backer {
	switch c {
	case settings.Rerun:
		return checkpoint.Rerun{}
	case settings.Fork:
		return checkpoint.NewFork(false)
	}
	return checkpoint.NewFork(true)
}
