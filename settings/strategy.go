package settings

import (
	"errors"
	"fmt"
)

// Strategy is the order in which exploration visits the schedule tree of
// the algorithm (Algorithm), or whether it samples it.
type Strategy int

const (
	// DFS is depth-first exploration of the whole tree, the thesis's
	// order: exhaustive when it finishes.
	DFS Strategy = iota
	// PB is iterative preemption bounding over the same tree (Musuvathi
	// and Qadeer, PLDI 2007): every schedule with 0 preemptions, then 1,
	// then 2 ..., each level complete before the next. When it finishes it
	// has explored exactly what DFS explores.
	PB
	// PCT is probabilistic concurrency testing (Burckhardt et al., ASPLOS
	// 2010): sampled schedules, random priorities and PCTDepth-1 priority
	// change points. Never complete.
	PCT
	// Random is a seeded random walk: uniform among the enabled goroutines
	// and the options at every choice point. Never complete.
	Random
)

var strategyNames = [...]string{"dfs", "pb", "pct", "random"}

func (s Strategy) String() string {
	if s >= 0 && int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Samples reports whether the strategy samples schedules (a run of it is
// never complete) rather than walking the tree.
func (s Strategy) Samples() bool { return s == PCT || s == Random }

// MarshalText implements encoding.TextMarshaler.
func (s Strategy) MarshalText() ([]byte, error) { return textOf(s, len(strategyNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Strategy) UnmarshalText(b []byte) error {
	return parseEnum(s, b, strategyNames[:], "strategy", "dfs, pb, pct or random")
}

// DefaultSeed is the seed of the sampling strategies when none is given:
// fixed, so that a run is reproducible (the summary prints it).
const DefaultSeed = 1

// DefaultPCTDepth is PCT's bug depth d when none is given: d-1 = 2 priority
// change points, which covers the ordering bugs (depth 1 or 2) and the
// atomicity violations (depth 2 or 3) the paper reports.
const DefaultPCTDepth = 3

// checkStrategy checks the strategy's own limits.
func (l *Limits) checkStrategy() error {
	if l.Samples < 0 || l.PCTDepth < 0 {
		return errors.New("bounds must not be negative")
	}
	if l.Strategy < 0 || int(l.Strategy) >= len(strategyNames) {
		return fmt.Errorf("invalid %s", l.Strategy)
	}
	return nil
}
