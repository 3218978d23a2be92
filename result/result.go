// Package result is xbtest's result model: what exploring a test finds and
// the JSON in which it is said. The scheduler fills it in inside the test
// binary and sends it through the results file (events.go); package xbtest,
// the Go API, reads it there, writes a schedule file per finding (package
// replay) and hands it to its caller; cmd/xbtest prints it, as text or as
// the -json events of events.go, which a tool decodes with DecodeEvent. It
// depends only on package settings, so any of them can import it.
//
// The words: a schedule is a sequence of atomic blocks (Block), each run
// by one goroutine from one scheduling point to the next (the ExitBlock
// family's unit, Bruening's thesis Ch. 2). A Finding is one distinct
// problem, with the goroutines involved and the schedule that leads to it.
// A Result is everything about one test.
package result

import (
	"fmt"
	"strings"
	"time"

	"github.com/xbtest/xbtest/settings"
)

// Kind classifies a finding; the strings are those of xbtest's JSON output.
type Kind string

const (
	Assertion Kind = "assertion"  // t.Error, t.Fatal and friends
	Panic     Kind = "panic"      // a panic or fatal error in any goroutine
	Race      Kind = "race"       // a data race (conflicting accesses unordered by happens-before, or by no common lock under -race lockset)
	LockCycle Kind = "lock-cycle" // a cycle of goroutines each holding a lock another wants
	Deadlock  Kind = "deadlock"   // no goroutine can move and the test goroutine has not finished
	Leak      Kind = "leak"       // the test goroutine finished but others are blocked forever
	// NonTermination: a goroutine exceeded -max-steps in one execution
	// (the thesis's terminateAfter) while nothing else could run: it may
	// not terminate.
	NonTermination Kind = "nontermination"
)

// Kinds lists every kind in report order.
var Kinds = []Kind{Assertion, Panic, Race, LockCycle, Deadlock, Leak, NonTermination}

// Goroutine describes one goroutine at the moment of a finding.
type Goroutine struct {
	ID    string `json:"id"`              // T0 is the test goroutine, T0.2 its second child
	State string `json:"state"`           // running, runnable, blocked, waiting, exited
	On    string `json:"on,omitempty"`    // what it waits for: "mutex", "chan receive", ...
	Pos   string `json:"pos,omitempty"`   // file:line of the original source
	Note  string `json:"note,omitempty"`  // e.g. the lock it would block on, or a race's access
	Stack string `json:"stack,omitempty"` // for panics
	// A replay's final states (ReplayOutcome.Final): the locks it holds and
	// the goroutines holding the lock it wants.
	Holds    []string `json:"holds,omitempty"`
	WaitsFor []string `json:"waits_for,omitempty"`
}

// DecisionBlock is the kind of every decision of a schedule: store-buffer
// flushes (-memory tso|pso) and virtual time are blocks of pseudo-goroutines
// ("T0.1 store buffer", "clock"), and which timers fire is recorded among
// the choices of a block. Readers refuse other kinds, so that a kind added
// later is never misread.
const DecisionBlock = "block"

// Block is one atomic block of a schedule: goroutine Goroutine (thread
// index Thread) ran from the end of the previous block through Points
// scheduling points (counted once a second goroutine exists), the last of
// which ended the block at Pos (operation Op, in function Fn, whose source
// line is Src), taking Choices at its notify and select points. Preempt:
// the goroutine could have gone on. The last block of a finding's schedule
// is Mid: it stops where the finding happened, not at a scheduling point.
// End is the absolute event number, for in-process replay and information
// only: an edit of code run before the block shifts it; Points and the
// anchor (Op, Pos, Src) do not move.
type Block struct {
	Kind      string  `json:"kind,omitempty"` // DecisionBlock in schedule files
	Goroutine string  `json:"g"`
	Thread    int32   `json:"t"`
	Points    int     `json:"points"`
	Choices   []int32 `json:"choices,omitempty"`
	Mid       bool    `json:"mid,omitempty"`
	Preempt   bool    `json:"preempt,omitempty"`
	Op        string  `json:"op,omitempty"`
	Pos       string  `json:"pos,omitempty"`
	Fn        string  `json:"fn,omitempty"`
	Src       string  `json:"src,omitempty"`
	End       int64   `json:"end,omitempty"`
}

// Preemptions counts the blocks that stopped a goroutine that could have
// gone on.
func Preemptions(bs []Block) int {
	n := 0
	for _, b := range bs {
		if b.Preempt {
			n++
		}
	}
	return n
}

// Shortened says how minimisation changed a finding's schedule.
type Shortened struct {
	Blocks      int  `json:"blocks"`            // blocks of the schedule exploration found
	Preemptions int  `json:"preemptions"`       // its preemptions
	Tries       int  `json:"tries,omitempty"`   // schedules tried
	Stopped     bool `json:"stopped,omitempty"` // at its time bound, with candidates left untried
}

// Want is the finding a replayed schedule must lead to: the same kind at
// the same place (a position whose line moved but whose file and source
// text Src are the same counts), and the same message if one is given.
type Want struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message,omitempty"`
	Pos     string `json:"pos,omitempty"`
	Src     string `json:"src,omitempty"`
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
	// Timeline is what following its schedule showed, step by step, when
	// the run asked for timelines (RunConfig.Timelines) and the schedule
	// was followed in process.
	Timeline *ReplayOutcome `json:"timeline,omitempty"`
	// Key tells findings apart as exploration does (the same problem seen
	// on many schedules is one finding): the shards of an exploration
	// (MergeShards) are merged by it.
	Key string `json:"key,omitempty"`
}

// Want is what a replay of f's schedule must lead to.
func (f *Finding) Want() Want {
	return Want{Kind: f.Kind, Message: f.Message, Pos: f.Pos, Src: f.Src}
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

// Bounds: why exploration of a test stopped before it was complete
// (Result.Bound).
const (
	BoundSchedules   = "schedules"   // -max-schedules
	BoundTime        = "time"        // -timeout
	BoundSteps       = "steps"       // a goroutine was stopped at -max-steps
	BoundStop        = "stop"        // -stop: the first finding
	BoundInterrupted = "interrupted" // Ctrl-C
	BoundError       = "error"       // Result.Internal says what
	BoundShards      = "shards"      // the shards' parts are not one exploration (Result.ShardLearnt)
	BoundSamples     = "samples"     // -strategy pct or random: sampled, never complete
	BoundOutside     = "outside"     // goroutines started outside the test were held while it ran (Result.Warnings names them)
)

// Result is the outcome of exploring one test.
type Result struct {
	Test string `json:"test"`
	// Semantics are the settings the test was explored with, normalised:
	// a schedule file of a finding records them.
	Semantics settings.Semantics `json:"semantics"`
	Schedules int                `json:"schedules"` // paths explored to their end
	Aborted   int                `json:"aborted"`   // paths cut short at an unavailable lock or a bound
	Findings  []*Finding         `json:"findings"`
	Complete  bool               `json:"complete"`        // false when a bound stopped exploration
	Bound     string             `json:"bound,omitempty"` // Bound*: why not complete
	Depth     int                `json:"depth,omitempty"` // the deepest path explored, in blocks
	Left      int                `json:"left,omitempty"`  // incomplete: branches left to explore, each at least one schedule
	// Strategy is the order of exploration; Seed, under a sampling one,
	// the seed that reproduces the run; PreemptionsComplete, under pb
	// when incomplete, the preemptions up to which every schedule was
	// explored (nil: not even 0).
	Strategy            settings.Strategy `json:"strategy,omitempty"`
	Seed                uint64            `json:"seed,omitempty"`
	PreemptionsComplete *int              `json:"preemptions_complete,omitempty"`
	Warnings            []string          `json:"warnings,omitempty"`
	Skipped             bool              `json:"skipped,omitempty"`
	Elapsed             time.Duration     `json:"elapsed"`
	// GOMAXPROCS is what the test body saw: exploration runs on one P,
	// and a replay must too (a test may size its workers by it).
	GOMAXPROCS int            `json:"gomaxprocs,omitempty"`
	Backer     string         `json:"checkpoint"`         // how exploration backed up (package checkpoint)
	Notes      []string       `json:"notes,omitempty"`    // how the test was explored (checkpoint strategy and why), for -v
	Internal   string         `json:"internal,omitempty"` // an error of xbtest itself
	Replay     *ReplayOutcome `json:"replay,omitempty"`   // xbtest -replay: what following the schedule showed
	// Shard is the part of the schedule tree explored (-shard; nil: all
	// of it); Schedules, Aborted and Findings are that part's.
	Shard *Shard `json:"shard,omitempty"`
	// ShardLearnt, for a shard, says what it learnt about the program in
	// its own part of the tree (a lock some TryLock tries, an RWMutex
	// locked both ways, a racy word under tso/pso), which moves block
	// boundaries everywhere: the other shards did not learn it, so their
	// trees differ from this one's and the parts do not add up to one
	// process's exploration ("" when it learnt nothing there).
	ShardLearnt string `json:"shard_learnt,omitempty"`
	// Team, for a test that several -parallel processes explored
	// together, says what each did (member 0 first); nil when one
	// process explored it.
	Team []Member `json:"team,omitempty"`
}

// Member is what one process of a -parallel team did of a test.
type Member struct {
	Schedules int `json:"schedules"`
	// Subtrees: parts of the tree below the split it claimed and
	// explored; Left: those it met that another member had claimed (or
	// another shard's, under -shard).
	Subtrees int `json:"subtrees"`
	Left     int `json:"left"`
	// Elapsed is how long it explored the test, CPU the processor time
	// it took (its forked processes' included: on idle cores its part of
	// the wall time), End when it was done; Idle how long before the
	// last member it was done (it had nothing left to claim).
	Elapsed time.Duration `json:"elapsed"`
	CPU     time.Duration `json:"cpu"`
	End     time.Time     `json:"end"`
	Idle    time.Duration `json:"idle"`
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

// BoundOf is why exploration stopped early: "" when it was complete or
// the test skipped, BoundError for an error of xbtest.
func (r *Result) BoundOf() string {
	if r.Complete || r.Skipped {
		return ""
	}
	if r.Bound == "" {
		return BoundError
	}
	return r.Bound
}

// ReplayOutcome is what following a recorded schedule showed.
type ReplayOutcome struct {
	Reproduced  bool        `json:"reproduced"`         // the schedule led to the recorded finding
	Diverged    string      `json:"diverged,omitempty"` // where the program stopped following the schedule
	Steps       []TraceStep `json:"steps"`              // every scheduling point, in order
	FindingStep int         `json:"finding_step"`       // the finding happened after this many steps (-1: none)
	Blocks      int         `json:"blocks"`
	// What the timeline of the replay shows besides the steps (-trace).
	Locks []LockSpan  `json:"locks,omitempty"` // every lock held, from acquisition to release
	Waits []WaitSpan  `json:"waits,omitempty"` // every wait of a goroutine, from parking to waking
	Marks []TraceMark `json:"marks,omitempty"` // the accesses of the races found
	Final []Goroutine `json:"final,omitempty"` // every goroutine at the end
}

// TraceStep is one scheduling point of a replayed schedule: the goroutine,
// its operation and where it happened in the source. A step without a
// goroutine is virtual time advancing (Op says to when): the timers due
// then fire.
type TraceStep struct {
	G     string `json:"g,omitempty"`
	Op    string `json:"op"`
	Pos   string `json:"pos,omitempty"`
	Src   string `json:"src,omitempty"`  // the source line at Pos
	Note  string `json:"note,omitempty"` // what the step did, where the operation does not say (a load's value)
	Block int    `json:"block"`          // the schedule's block it belongs to (len(blocks) and beyond: after the schedule)
	// Buffered (-memory tso|pso): the stores sitting in the store buffer of
	// G (of its owner for a flush), oldest first, when G reached the step.
	Buffered []string `json:"buffered,omitempty"`
}

// Positions between steps: a span or mark "at step n" happened after the
// first n steps and before the next one (0: before the first).

// LockSpan is a lock held by a goroutine: taken at step From, released at
// step To (-1: still held at the end).
type LockSpan struct {
	G    string `json:"g"`
	Lock string `json:"lock"` // as reports name it: the variable and mutex#N
	Read bool   `json:"read,omitempty"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// WaitSpan is a goroutine waiting (on a channel, a Cond, a WaitGroup...):
// parked at step From (the step that parked it is steps[From]), woken at
// step To by goroutine By (To -1: still waiting at the end; By "clock": a
// timer).
type WaitSpan struct {
	G    string `json:"g"`
	On   string `json:"on"`
	From int    `json:"from"`
	To   int    `json:"to"`
	By   string `json:"by,omitempty"`
}

// TraceMark is an access of a race: goroutine G read or wrote (Op) at Pos,
// at step Step.
type TraceMark struct {
	G    string `json:"g"`
	Op   string `json:"op"`
	Pos  string `json:"pos,omitempty"`
	Src  string `json:"src,omitempty"`
	Step int    `json:"step"`
}
