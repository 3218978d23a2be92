// Package guide steers guided executions along a recorded schedule (xbtest
// -replay, and the minimisation of a finding's schedule) and records what
// a traced one shows for its timeline. It is a component of the engine:
// the engine owns the execution and calls in at its scheduling points,
// choices and ticks; this package owns the schedule, how far the execution
// has followed it, and the record. It reaches the execution only through
// Host (letting virtual time pass before a block whose goroutine cannot
// run otherwise, why a goroutine cannot run), names goroutines by thread index and
// ID, locks by an opaque handle and positions as uint32 (package srcpos's
// Pos), and imports neither the engine nor its other components.
//
// # Following a schedule
//
// A schedule names, for each atomic block, the goroutine that ran it, how
// many scheduling points it passed and the operation that ended it (position,
// function, source line). A guided execution runs the explorer from the start
// with deadlock detection and without read/write pruning, so every goroutine
// that can run is enabled and the program's state, not the pruning history of
// the exploration that found the schedule, decides what is a deadlock. At each
// block end it takes the recorded goroutine, at each notify or select the
// recorded choice, and it checks that the operation ending the block is the
// recorded one: the first mismatch stops the execution (a divergence). When
// the recorded blocks are used up the explorer goes on with its first choices
// (the running goroutine continues), which is how the last block runs on to
// the finding, and how a truncated schedule is completed without preemptions.
//
// Blocks are counted in scheduling points, not in events: memory accesses are
// events but not scheduling points at synchronization granularity, and block
// 0 is counted from the start of the second goroutine, so an edit that adds
// or removes a shared-memory access, or a synchronization in the sequential
// set-up, does not move the schedule.
//
// The engine counts a block's scheduling points and describes the point a
// goroutine is at as a result.Block (its anchor); at each point it asks
// Following, then compares with Block, Short, EndsAt and WrongEnd, and
// moves on with Advance; at a choice it asks Choice, at a tick TickChoice. The Guide is
// the explorer's sched.Director: Pick chooses the recorded goroutine.
//
// # The timeline
//
// What a replay records for its timeline (xbtest -replay -trace) besides
// the scheduling points (Step): the locks each goroutine holds from
// acquisition to release, each wait from parking to waking and who woke it,
// the accesses of the races found, each step's source line and store
// buffer, and every goroutine's state at the end (timeline.go). Only guided
// executions with tracing on record it; the engine calls in at a handful of
// places, each a single line guarded by its trace flag, and the recording
// is the Guide's (nil: an execution that follows no schedule records
// nothing). Outcome hands the record to the driver.
package guide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// Host is the execution a Guide steers, as the guide asks it.
type Host interface {
	// CatchUp lets virtual time pass if goroutine thread, which is to run
	// the next recorded block, cannot run otherwise (vclock's CatchUp).
	CatchUp(thread int32)
	// NotEnabled says why goroutine thread cannot run the recorded
	// block: "has exited or does not exist", "is waiting on ...", "is
	// blocked on a lock".
	NotEnabled(thread int32) string
}

// Guide is the schedule a guided execution follows, and what it observed.
type Guide struct {
	host    Host // the executions it guides
	blocks  []result.Block
	i       int // the block under way
	choiceN int // its choices taken so far
	check   bool
	record  bool // the execution records its timeline (timeline.go)
	midRun  bool // the last, mid-block block has started
	div     string
	hints   []hint // goroutines found blocked on a lock, learnt by earlier attempts
	// The block that ended last, and how many of its recorded choices it
	// took: the rest belong to the tick that follows it (see package vclock), if
	// time advances before the next block (-1: the next block has started).
	owed, owedN int
	steps       []result.TraceStep
	found       []int // len(steps) when each finding of the execution was added
	tl          timeline
}

// hint: at path depth depth, goroutine b.t is blocked on a lock (the
// exploration learns this by aborting a block; a guided execution learns it
// the same way and starts again).
type hint struct {
	depth int
	b     sched.Blocked
}

const maxSteps = 100000 // steps kept for a report

var _ sched.Director = (*Guide)(nil)

// New returns a guide along blocks for h's guided executions; with check,
// it checks that each block ends at the recorded operation.
func New(h Host, blocks []result.Block, check bool) *Guide {
	return &Guide{host: h, blocks: blocks, check: check}
}

// Reset prepares g for the next guided execution, keeping its hints.
func (g *Guide) Reset() {
	g.i, g.choiceN, g.div, g.midRun, g.owed = 0, 0, "", false, -1
	g.steps, g.found = g.steps[:0], g.found[:0]
	g.tl = timeline{}
}

// Record says whether the execution g guides records its timeline (the
// engine's Config.Trace).
func (g *Guide) Record(on bool) { g.record = on }

// Hints is how many goroutines blocked on a lock g has learnt of.
func (g *Guide) Hints() int { return len(g.hints) }

// Diverged is where the last guided execution stopped following the
// schedule ("" if it did not).
func (g *Guide) Diverged() string { return g.div }

// SetDiverged records why the guided execution could not follow the
// schedule.
func (g *Guide) SetDiverged(why string) { g.div = why }

// Following reports whether block g.i is still steered by the schedule
// (the last, mid-block one only chooses its goroutine and choices).
func (g *Guide) Following() bool { return g.i < len(g.blocks) && !g.blocks[g.i].Mid }

// Block is the recorded block under way (Following).
func (g *Guide) Block() *result.Block { return &g.blocks[g.i] }

// Short is the divergence of goroutine who stopping at a (not a point a
// preemption may pass) after points of the block's scheduling points.
func (g *Guide) Short(who string, points int, a result.Block) string {
	b := &g.blocks[g.i]
	return fmt.Sprintf("block %d: %s was to pass %d more scheduling point(s) and stop at %s, but it stopped at %s",
		g.i, who, b.Points-points, describeAnchor(*b), describeAnchor(a))
}

// Checks reports whether g checks that each block ends at the recorded
// operation (EndsAt).
func (g *Guide) Checks() bool { return g.check }

// EndsAt reports whether the block under way ends at a as recorded.
func (g *Guide) EndsAt(a result.Block) bool { return sameAnchor(g.blocks[g.i], a) }

// WrongEnd is the divergence of goroutine who ending the block at a, not
// at the recorded end.
func (g *Guide) WrongEnd(who string, a result.Block) string {
	b := &g.blocks[g.i]
	return fmt.Sprintf("block %d: %s was to end at %s, but its scheduling point %d is %s",
		g.i, who, describeAnchor(*b), b.Points, describeAnchor(a))
}

// Advance ends the block under way.
func (g *Guide) Advance() {
	// Recorded choices the block did not take are the tick's after it;
	// pickThread checks they were taken.
	g.owed, g.owedN = g.i, g.choiceN
	g.i++
	g.choiceN = 0
}

// Pick implements sched.Director: the explorer's choice in a guided
// execution.
func (g *Guide) Pick(depth int, enabled *sched.TSet, blocked *[]sched.Blocked) (int32, bool) {
	t := g.pickThread(depth, enabled, blocked)
	return t, g.div != ""
}

// BlockedAt implements sched.Director: an aborted attempt learnt that b is
// blocked on a lock at depth; the next attempt starts over knowing it.
func (g *Guide) BlockedAt(depth int, b sched.Blocked) {
	g.hints = append(g.hints, hint{depth, b})
}

// pickThread is the schedule's goroutine for the block that starts at path
// depth, or -1 when the schedule is used up. It applies to st what earlier
// attempts learnt about goroutines blocked on locks.
func (g *Guide) pickThread(depth int, enabled *sched.TSet, blocked *[]sched.Blocked) int32 {
	for _, h := range g.hints {
		if h.depth == depth && enabled.Has(h.b.Thread) {
			enabled.Remove(h.b.Thread)
			*blocked = append(*blocked, h.b)
		}
	}
	if g.owed >= 0 && g.div == "" {
		if b := &g.blocks[g.owed]; g.owedN != len(b.Choices) {
			g.div = fmt.Sprintf("block %d: %s made %d notify, select or timer choice(s), the schedule has %d", g.owed, b.Goroutine, g.owedN, len(b.Choices))
			return -1
		}
	}
	g.owed = -1
	if g.i >= len(g.blocks) || g.midRun {
		return -1
	}
	b := &g.blocks[g.i]
	g.midRun = b.Mid
	if !enabled.Has(b.Thread) && g.div == "" {
		// Time passes first if the block's goroutine cannot run otherwise,
		// as in a replayed prefix (vclock's CatchUp): the goroutines before
		// it polled until time passed (exitblock's "Polling alone" and
		// "Polling together"), which the guided execution, ending blocks
		// where the schedule says, does not count.
		g.host.CatchUp(b.Thread)
	}
	if !enabled.Has(b.Thread) && g.div == "" {
		g.div = fmt.Sprintf("block %d: %s was to run next, but it %s", g.i, b.Goroutine, g.host.NotEnabled(b.Thread))
		return -1
	}
	return b.Thread
}

// Choice returns the schedule's choice at a notify or select point, if the
// block under way records one.
func (g *Guide) Choice(options []int32) (int32, bool, bool) {
	if g.i >= len(g.blocks) {
		return 0, false, false
	}
	b := &g.blocks[g.i]
	if g.choiceN >= len(b.Choices) {
		if b.Mid {
			return 0, false, false // past the finding: the explorer's choice
		}
		return 0, false, true
	}
	c := b.Choices[g.choiceN]
	g.choiceN++
	return c, slices.Contains(options, c), true
}

// ChoiceMismatch is the divergence of goroutine who, at position at, when
// Choice's recorded choice is not available.
func (g *Guide) ChoiceMismatch(who, at string) string {
	if len(g.blocks[g.i].Choices) < g.choiceN+1 {
		return fmt.Sprintf("block %d: %s made more notify/select choices than recorded, at %s", g.i, who, at)
	}
	return fmt.Sprintf("block %d: the recorded notify/select choice is not available to %s at %s", g.i, who, at)
}

// TickChoice returns the schedule's choice at a tick: which of the timers
// due at the new instant fires next (or -1, see vclock's fireDue), recorded among the
// choices of the block before the tick. recorded is false when the tick
// comes after the schedule (the explorer chooses).
// why says what does not fit when the recorded choice is not available.
func (g *Guide) TickChoice(options []int32) (c int32, recorded bool, why string) {
	if g.owed < 0 {
		return 0, false, "" // inside the last, mid-block block
	}
	b := &g.blocks[g.owed]
	if g.owedN >= len(b.Choices) {
		if g.owed == len(g.blocks)-1 {
			return 0, false, "" // after the schedule (a prefix, in minimisation): the explorer chooses
		}
		return 0, true, fmt.Sprintf("block %d: %s made more notify, select or timer choices than recorded: a tick offered timers %v", g.owed, b.Goroutine, options)
	}
	c = b.Choices[g.owedN]
	g.owedN++
	if !slices.Contains(options, c) {
		return c, true, fmt.Sprintf("block %d: the recorded timer choice %d is not among those due at the tick after it (%v)", g.owed, c, options)
	}
	return c, true, ""
}

// sameAnchor reports whether a scheduling point is the recorded one: the
// same operation at the same position, or, when lines moved (an edit above
// it), the same operation in the same file and function on a line with the
// same source text.
func sameAnchor(want, got result.Block) bool {
	if want.Op != got.Op {
		return false
	}
	if want.Pos == got.Pos {
		return true
	}
	wf, _, _ := strings.Cut(want.Pos, ":")
	gf, _, _ := strings.Cut(got.Pos, ":")
	return wf == gf && want.Fn == got.Fn && want.Src != "" && want.Src == got.Src
}

func describeAnchor(b result.Block) string {
	s := b.Op
	if b.Pos != "" {
		s += " at " + b.Pos
	}
	if b.Src != "" {
		s += " (" + b.Src + ")"
	}
	return s
}
