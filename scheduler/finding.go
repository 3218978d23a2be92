package scheduler

import (
	"fmt"
	"strings"
	"time"
)

// Kind classifies a finding; the strings are those of xbtest's JSON output.
type Kind string

const (
	KindAssertion Kind = "assertion"  // t.Error, t.Fatal and friends
	KindPanic     Kind = "panic"      // a panic or fatal error in any goroutine
	KindRace      Kind = "race"       // a data race (Eraser)
	KindLockCycle Kind = "lock-cycle" // a cycle of goroutines each holding a lock another wants
	KindDeadlock  Kind = "deadlock"   // no goroutine can move and the test goroutine has not finished
	KindLeak      Kind = "leak"       // the test goroutine finished but others are blocked forever
	// KindNonTermination: a goroutine exceeded -max-steps in one execution
	// (the thesis's terminateAfter): it may not terminate.
	KindNonTermination Kind = "nontermination"
)

// Kinds lists every kind in report order.
var Kinds = []Kind{KindAssertion, KindPanic, KindRace, KindLockCycle, KindDeadlock, KindLeak, KindNonTermination}

// Goroutine describes one goroutine at the moment of a finding.
type Goroutine struct {
	ID    string `json:"id"`              // T0 is the test goroutine, T0.2 its second child
	State string `json:"state"`           // running, runnable, blocked, waiting, exited
	On    string `json:"on,omitempty"`    // what it waits for: "mutex", "chan receive", ...
	Pos   string `json:"pos,omitempty"`   // file:line of the original source
	Note  string `json:"note,omitempty"`  // e.g. the lock it would block on
	Stack string `json:"stack,omitempty"` // for panics
}

// Block is one atomic block of a schedule, for replay and reports: goroutine
// Thread ran from the end of the previous block through Points scheduling
// points (counted once a second goroutine exists), the last of which ended
// the block at Pos (the operation Op, in function Fn, whose source line is
// Src), taking Choices at its notify and select points. The last block of a
// finding's schedule is Mid: it stops where the finding happened, not at a
// scheduling point. End is the absolute event number, for in-process
// replay only: an edit of code run before the block shifts it, Points and
// the anchor do not move.
type Block struct {
	Goroutine string  `json:"g"`
	Thread    int32   `json:"t"`
	End       int64   `json:"end"`
	Points    int     `json:"points"`
	Choices   []int32 `json:"choices,omitempty"`
	Mid       bool    `json:"mid,omitempty"`
	Preempt   bool    `json:"preempt,omitempty"` // the goroutine could have gone on: a preemption
	Op        string  `json:"op,omitempty"`
	Pos       string  `json:"pos,omitempty"`
	Fn        string  `json:"fn,omitempty"`
	Src       string  `json:"src,omitempty"`
}

// Shortened says how minimisation changed a finding's schedule.
type Shortened struct {
	Blocks      int `json:"blocks"`      // blocks of the schedule exploration found
	Preemptions int `json:"preemptions"` // its preemptions
	Tries       int `json:"tries"`       // schedules tried
}

// Finding is one distinct problem found while exploring a test.
type Finding struct {
	Kind       Kind        `json:"kind"`
	Message    string      `json:"message"`
	Pos        string      `json:"pos,omitempty"`
	Goroutines []Goroutine `json:"goroutines,omitempty"`
	Schedule   int         `json:"schedule"`      // 1-based number of the first schedule that showed it
	Count      int         `json:"count"`         // how many explored schedules showed it
	Log        []string    `json:"log,omitempty"` // the test's t.Log lines up to the finding, on its first schedule
	Blocks     []Block     `json:"blocks,omitempty"`
	Src        string      `json:"src,omitempty"`       // the source line at Pos
	Shortened  *Shortened  `json:"shortened,omitempty"` // the schedule before minimisation
	// Unreproduced says why following the schedule as xbtest -replay does
	// did not lead to the finding again (a bug of xbtest, or something
	// the program depends on that xbtest does not control); "" when it did.
	Unreproduced string `json:"unreproduced,omitempty"`
	path         []decision
	key          string
}

func (f *Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", f.Kind, f.Message)
	if f.Pos != "" {
		fmt.Fprintf(&b, " (%s)", f.Pos)
	}
	for _, g := range f.Goroutines {
		fmt.Fprintf(&b, "\n  %s %s", g.ID, g.State)
		if g.On != "" {
			fmt.Fprintf(&b, " on %s", g.On)
		}
		if g.Pos != "" {
			fmt.Fprintf(&b, " at %s", g.Pos)
		}
		if g.Note != "" {
			fmt.Fprintf(&b, " (%s)", g.Note)
		}
	}
	return b.String()
}

// Result is the outcome of exploring one test.
type Result struct {
	Test      string         `json:"test"`
	Algorithm Algorithm      `json:"-"`
	SyncDeps  bool           `json:"sync_deps"`
	Schedules int            `json:"schedules"` // paths explored to their end
	Aborted   int            `json:"aborted"`   // paths cut short at an unavailable lock or a bound
	Findings  []*Finding     `json:"findings"`
	Complete  bool           `json:"complete"` // false when a bound stopped exploration
	Bound     string         `json:"bound,omitempty"`
	Depth     int            `json:"depth,omitempty"` // the deepest path explored, in blocks
	Left      int            `json:"left,omitempty"`  // incomplete: branches left to explore, each at least one schedule
	Warnings  []string       `json:"warnings,omitempty"`
	Skipped   bool           `json:"skipped,omitempty"`
	Elapsed   time.Duration  `json:"-"`
	Backer    string         `json:"checkpoint"`
	Notes     []string       `json:"notes,omitempty"`    // how the test was explored (checkpoint strategy and why), for -v
	Internal  string         `json:"internal,omitempty"` // an error of xbtest itself
	Replay    *ReplayOutcome `json:"replay,omitempty"`   // xbtest -replay: what following the schedule showed
}

// Count returns the number of distinct findings of kind k.
func (r *Result) Count(k Kind) int {
	n := 0
	for _, f := range r.Findings {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// Kinds returns the kinds of the findings, in report order, with repetitions.
func (r *Result) Kinds() []Kind {
	var ks []Kind
	for _, k := range Kinds {
		for range r.Count(k) {
			ks = append(ks, k)
		}
	}
	return ks
}
