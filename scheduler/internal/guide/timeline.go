package guide

import (
	"fmt"
	"reflect"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// The record of a traced guided execution (see the package doc): its
// steps, and the spans, marks and wants of the timeline. Goroutines are
// thread indices (and their IDs, as reports name them), locks the
// engine's opaque handles.

// timeline is the guide's record of one guided execution.
type timeline struct {
	locks []result.LockSpan
	open  map[any]map[int32]int // index in locks of each span still open, by lock and goroutine
	waits []result.WaitSpan
	// The wait under way of each goroutine (index in waits).
	waiting map[int32]int
	marks   []result.TraceMark
	// The steps recorded when each goroutine last accessed each position
	// (for the earlier access of a race).
	accessed map[accessAt]int
	// The lock each goroutine failed to take (the execution ends there).
	wants map[int32]any
}

type accessAt struct {
	t   int32
	pos uint32
}

func (tl *timeline) reset() {
	*tl = timeline{open: map[any]map[int32]int{}, waiting: map[int32]int{}, accessed: map[accessAt]int{}, wants: map[int32]any{}}
}

// tracing returns the timeline being recorded, or nil.
func (g *Guide) tracing() *timeline {
	if g == nil || !g.record || len(g.steps) >= maxSteps {
		return nil
	}
	if g.tl.open == nil {
		g.tl.reset()
	}
	return &g.tl
}

// Stepping reports whether g keeps more steps (a report keeps at most
// maxSteps).
func (g *Guide) Stepping() bool { return len(g.steps) < maxSteps }

// Step records a step of a traced guided execution (Stepping), in the
// block under way: a scheduling point, or the clock's advance.
func (g *Guide) Step(st result.TraceStep) {
	st.Block = g.i
	g.steps = append(g.steps, st)
}

// Found notes that the execution added a finding at the current step.
func (g *Guide) Found() { g.found = append(g.found, len(g.steps)) }

// Store is an entry of a store buffer as a step shows it (package
// storebuf's Entry): its position, and its value if it has one (a method
// Value() any).
type Store interface{ Where() uint32 }

// DescribeStore says what a buffered store writes where: "x = 1
// (file.go:12)", the variable as the source names it.
func DescribeStore(e Store) string {
	p := srcpos.Pos(e.Where())
	name := p.Expr()
	if name == "" {
		name = "?"
		if file, line := p.FileLine(); file != "" {
			name = srcpos.SourceLine(file, line)
		}
	}
	val := "…"
	if v, ok := e.(interface{ Value() any }); ok {
		val = showValue(v.Value())
	}
	return name + " = " + val + " (" + p.String() + ")"
}

// showValue prints a loaded or stored value, briefly.
func showValue(v any) string {
	if v != nil && reflect.TypeOf(v).Kind() == reflect.Func {
		return "a func" // its address says nothing
	}
	s := fmt.Sprintf("%v", v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// TraceLock records goroutine t (named id) taking (or letting go of) lock,
// named name; read: t takes it as a reader.
func (g *Guide) TraceLock(t int32, id string, lock any, read, take bool, name string) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	now := len(g.steps)
	if take {
		if tl.open[lock] == nil {
			tl.open[lock] = map[int32]int{}
		}
		tl.open[lock][t] = len(tl.locks)
		tl.locks = append(tl.locks, result.LockSpan{G: id, Lock: name, Read: read, From: now, To: -1})
		return
	}
	if i, ok := tl.open[lock][t]; ok {
		tl.locks[i].To = now
		delete(tl.open[lock], t)
	}
}

// TracePark records goroutine t (named id) starting to wait on on; the
// step that parks it comes next.
func (g *Guide) TracePark(t int32, id, on string) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	tl.waiting[t] = len(tl.waits)
	tl.waits = append(tl.waits, result.WaitSpan{G: id, On: on, From: len(g.steps), To: -1})
}

// TraceWake records w woken by by: the running goroutine's ID, or
// "clock".
func (g *Guide) TraceWake(w int32, by string) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	i, ok := tl.waiting[w]
	if !ok {
		return
	}
	delete(tl.waiting, w)
	tl.waits[i].To = len(g.steps)
	tl.waits[i].By = by
}

// TraceWant records t failing to take lock.
func (g *Guide) TraceWant(t int32, lock any) {
	if tl := g.tracing(); tl != nil {
		tl.wants[t] = lock
	}
}

// TraceLoad notes on the step of goroutine id at a buffered load what it
// read, and where from (-memory tso|pso).
func (g *Guide) TraceLoad(id string, pos srcpos.Pos, v any, forwarded bool) {
	if g == nil || !g.record || len(g.steps) == 0 {
		return
	}
	st := &g.steps[len(g.steps)-1]
	if st.G != id {
		return
	}
	name := pos.Expr()
	if name == "" {
		name = "?"
	}
	val := showValue(v)
	from := "memory"
	if forwarded {
		from = "its store buffer"
	}
	st.Note = fmt.Sprintf("reads %s = %s from %s", name, val, from)
}

// TraceAccess notes when t last made a plain access at pos.
func (g *Guide) TraceAccess(t int32, pos uint32) {
	if tl := g.tracing(); tl != nil {
		tl.accessed[accessAt{t, pos}] = len(g.steps)
	}
}

// TraceRace marks the two accesses of a race.
func (g *Guide) TraceRace(f *result.Finding, prevT int32, cur, prev uint32) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	mark := func(pos uint32, gr result.Goroutine, step int) {
		m := result.TraceMark{G: gr.ID, Op: gr.State, Pos: gr.Pos, Step: step}
		m.Src = srcpos.SourceAt(gr.Pos)
		if file, line := srcpos.Pos(pos).FileLine(); file != "" {
			m.Src = srcpos.SourceLine(file, line)
		}
		tl.marks = append(tl.marks, m)
	}
	now := len(g.steps)
	mark(cur, f.Goroutines[0], now)
	prevStep, ok := tl.accessed[accessAt{prevT, prev}]
	if !ok {
		prevStep = now
	}
	mark(prev, f.Goroutines[1], prevStep)
}

// Store-buffer events in the trace of a replay (xbtest -replay -trace):
// a store that enters a buffer and a drain's commit are no scheduling
// points, so the trace would show only the flushes; these steps say which
// store sat in which buffer and when a fence committed it. (A flush is a
// step of its own already: G the buffer, Op "flush", Pos the store.)

// Records reports whether g records the execution's steps (nil: no guide).
func (g *Guide) Records() bool { return g != nil && g.record }

// StoreStep records a store-buffer event op of the buffer or goroutine
// named id, at the store at pos: "store buffered", "commit (fence)".
func (g *Guide) StoreStep(id, op string, pos srcpos.Pos) {
	if g == nil || !g.record || len(g.steps) >= maxSteps {
		return
	}
	if e := pos.Expr(); e != "" {
		op += " " + e
	}
	g.steps = append(g.steps, result.TraceStep{G: id, Op: op, Pos: pos.String(), Block: g.i})
}

// Outcome is what the last guided execution g followed showed: final is
// every goroutine's state at its end, reproduced says it led to the
// finding sought, which was its finding-th (-1: none).
func (g *Guide) Outcome(final []result.Goroutine, reproduced bool, finding int) *result.ReplayOutcome {
	out := &result.ReplayOutcome{Steps: g.steps, Diverged: g.div, FindingStep: -1, Blocks: len(g.blocks),
		Locks: g.tl.locks, Waits: g.tl.waits, Marks: g.tl.marks, Final: final}
	if reproduced {
		out.Reproduced = true
		if finding >= 0 {
			out.FindingStep = g.found[finding]
		}
	}
	return out
}

// WantOf is the lock t failed to take in a traced guided execution (g
// nil: none).
func (g *Guide) WantOf(t int32) any {
	if g == nil {
		return nil
	}
	return g.tl.wants[t]
}
