package engine

import (
	"fmt"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"slices"
	"strings"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// Guided executions follow a recorded schedule (xbtest -replay, and the
// minimisation of a finding's schedule).
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

// Guide is the schedule a guided execution follows, and what it observed.
type Guide struct {
	r       *run // the executions it guides
	blocks  []result.Block
	i       int // the block under way
	choiceN int // its choices taken so far
	check   bool
	record  bool // the execution records its timeline (Config.Trace; timeline.go)
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

func (g *Guide) reset() {
	g.i, g.choiceN, g.div, g.midRun, g.owed = 0, 0, "", false, -1
	g.steps, g.found = g.steps[:0], g.found[:0]
	g.tl = timeline{}
}

// following reports whether block g.i is still steered by the schedule
// (the last, mid-block one only chooses its goroutine and choices).
func (g *Guide) following() bool { return g.i < len(g.blocks) && !g.blocks[g.i].Mid }

// guided is point for a guided execution.
func (r *run) guided(t *thread, kind pointKind) *thread {
	g := r.guide
	if r.multi {
		r.bpoints++
	}
	if r.trace && len(g.steps) < maxSteps {
		a := r.anchor(t, kind)
		g.steps = append(g.steps, result.TraceStep{G: t.id(), Op: a.Op, Pos: a.Pos, Block: g.i})
		traceStep(t, &g.steps[len(g.steps)-1], a.Src)
	}
	if !g.following() {
		return r.dispatch(t, kind)
	}
	b := &g.blocks[g.i]
	if r.bpoints < b.Points {
		if kind != ptBoundary && kind != ptSpawn && kind != ptWake && kind != ptYield && kind != ptPass {
			a := r.anchor(t, kind)
			r.guideDiverged(t, fmt.Sprintf("block %d: %s was to pass %d more scheduling point(s) and stop at %s, but it stopped at %s",
				g.i, t.id(), b.Points-r.bpoints, describeAnchor(*b), describeAnchor(a)))
		}
		return t
	}
	if g.check {
		if a := r.anchor(t, kind); !sameAnchor(*b, a) {
			r.guideDiverged(t, fmt.Sprintf("block %d: %s was to end at %s, but its scheduling point %d is %s",
				g.i, t.id(), describeAnchor(*b), b.Points, describeAnchor(a)))
		}
	}
	// Recorded choices the block did not take are the tick's after it;
	// pick checks they were taken.
	g.owed, g.owedN = g.i, g.choiceN
	g.i++
	g.choiceN = 0
	r.bpoints = 0
	var next *thread
	switch kind {
	case ptBoundary, ptSpawn, ptWake, ptYield, ptPass:
		next = r.threadOf(r.strat.Preempt(kind != ptSpawn && kind != ptWake))
	default:
		next = r.dispatch(t, kind)
	}
	if g.div != "" {
		r.end(EndDiverged)
		t.sleep()
	}
	return next
}

// dispatch hands a scheduling point to the explorer.
func (r *run) dispatch(t *thread, kind pointKind) *thread {
	switch kind {
	case ptBoundary:
		return r.threadOf(r.strat.Boundary())
	case ptYield:
		return r.threadOf(r.strat.Yielded())
	case ptPark:
		return r.threadOf(r.strat.Park())
	case ptExit:
		return r.threadOf(r.strat.Exit())
	case ptFreeze:
		return r.threadOf(r.strat.Freeze())
	}
	return t
}

// pick implements director: loop's choice in a guided execution.
func (g *Guide) Pick(depth int, enabled *sched.TSet, blocked *[]sched.Blocked) (int32, bool) {
	t := g.pickThread(depth, enabled, blocked)
	return t, g.div != ""
}

// blockedAt implements director: an aborted attempt learnt that b is
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
		r := g.r
		r.clock.CatchUp(r.cur.idx, b.Thread, len(r.natives) > 0)
	}
	if !enabled.Has(b.Thread) && g.div == "" {
		why := "has exited or does not exist"
		if t := g.r.threadAt(b.Thread); t != nil {
			switch {
			case t.status == stWaiting:
				why = "is waiting on " + t.on
			case t.status == stRunnable:
				why = "is blocked on a lock"
			}
		}
		g.div = fmt.Sprintf("block %d: %s was to run next, but it %s", g.i, b.Goroutine, why)
		return -1
	}
	return b.Thread
}

// choice returns the schedule's choice at a notify or select point, if the
// block under way records one.
func (g *Guide) choice(options []int32) (int32, bool, bool) {
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

// tickChoice returns the schedule's choice at a tick: which of the timers
// due at the new instant fires next (or -1, see vclock's fireDue), recorded among the
// choices of the block before the tick. recorded is false when the tick
// comes after the schedule (the explorer chooses).
// why says what does not fit when the recorded choice is not available.
func (g *Guide) tickChoice(options []int32) (c int32, recorded bool, why string) {
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

func (r *run) guideDiverged(t *thread, why string) {
	r.guide.div = why
	r.end(EndDiverged)
	t.sleep()
}

// anchor describes the scheduling point t is at (trace mode: t.pcs is the
// stack of its last event).
func (r *run) anchor(t *thread, kind pointKind) result.Block {
	b := result.Block{Points: r.bpoints, Preempt: kind == ptBoundary || kind == ptSpawn || kind == ptWake || kind == ptYield || kind == ptPass}
	switch kind {
	case ptExit:
		b.Op = "exit"
	case ptFreeze:
		b.Op = "step bound"
	default:
		b.Op = srcpos.OpName(t.pcs)
	}
	if kind == ptSpawn {
		b.Op = "go"
	}
	if buf := t.flushOf; buf != nil {
		// A flush: the store it committed, in the goroutine that made it.
		b.Op = "flush"
		if file, line := Pos(buf.Flushed).FileLine(); file != "" {
			b.Pos, b.Src = srcpos.Short(file, line), srcpos.SourceLine(file, line)
		}
		return b
	}
	if t.isClock {
		b.Op = "timer fires"
		return b
	}
	file, line, fn := srcpos.UserFrame(t.pcs)
	if file != "" {
		b.Pos, b.Fn, b.Src = srcpos.Short(file, line), fn, srcpos.SourceLine(file, line)
	}
	return b
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

// notePositions gives the goroutines of a finding of a guided execution
// their positions at the moment of the finding (trace mode).
func (r *run) notePositions(f *Finding) {
	pos := map[string]string{}
	for _, t := range r.threads {
		if file, line, _ := srcpos.UserFrame(t.pcs); file != "" {
			pos[t.id()] = srcpos.Short(file, line)
			srcpos.SourceLine(file, line)
		}
	}
	for i := range f.Goroutines {
		if g := &f.Goroutines[i]; g.Pos == "" {
			g.Pos = pos[g.ID]
		}
	}
	if f.Pos == "" && len(f.Goroutines) > 0 {
		f.Pos = f.Goroutines[0].Pos
	}
	f.Src = srcpos.SourceAt(f.Pos)
}
