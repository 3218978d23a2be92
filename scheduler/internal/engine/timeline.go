package engine

import (
	"fmt"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"reflect"

	"github.com/xbtest/xbtest/result"
)

// What a replay records for its timeline (xbtest -replay -trace) besides
// the scheduling points: the locks each goroutine holds from acquisition to
// release, each wait from parking to waking and who woke it, the accesses of
// the races found, each step's source line and store buffer, and every
// goroutine's state at the end. Only guided executions with tracing on
// (Replay) record it; the engine calls in at a handful of places, each a
// single line guarded by r.trace, and the recording is the Guide's (nil:
// an execution that follows no schedule records nothing).

// timeline is the guide's record of one guided execution.
type timeline struct {
	locks []result.LockSpan
	open  map[*lockState]map[*thread]int // index in locks of each span still open
	waits []result.WaitSpan
	// The wait under way of each goroutine (index in waits).
	waiting map[*thread]int
	marks   []result.TraceMark
	// The steps recorded when each goroutine last accessed each position
	// (for the earlier access of a race).
	accessed map[accessAt]int
	// The lock each goroutine failed to take (the execution ends there).
	wants map[*thread]*lockState
}

type accessAt struct {
	t   int32
	pos uint32
}

func (tl *timeline) reset() {
	*tl = timeline{open: map[*lockState]map[*thread]int{}, waiting: map[*thread]int{}, accessed: map[accessAt]int{}, wants: map[*thread]*lockState{}}
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

// traceStep completes a step of t at a scheduling point: its source line
// and its store buffer.
func traceStep(t *thread, st *result.TraceStep, src string) {
	st.Src = src
	owner := t
	if t.flushOf != nil {
		owner = t.r.threads[t.flushOf.Owner()]
	}
	for _, b := range owner.sb.Bufs() {
		for _, e := range b.Entries() {
			st.Buffered = append(st.Buffered, describeStore(e))
		}
	}
}

// describeStore says what a buffered store writes where: "x = 1
// (file.go:12)", the variable as the source names it.
func describeStore(e storebuf.Entry) string {
	p := Pos(e.Where())
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

// traceLock records t taking (or letting go of) l, named name.
func (g *Guide) traceLock(t *thread, l *lockState, take bool, name string) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	now := len(g.steps)
	if take {
		if tl.open[l] == nil {
			tl.open[l] = map[*thread]int{}
		}
		tl.open[l][t] = len(tl.locks)
		tl.locks = append(tl.locks, result.LockSpan{G: t.id(), Lock: name, Read: l.writer != t, From: now, To: -1})
		return
	}
	if i, ok := tl.open[l][t]; ok {
		tl.locks[i].To = now
		delete(tl.open[l], t)
	}
}

// tracePark records t starting to wait; the step that parks it comes next.
func (g *Guide) tracePark(t *thread, on string) {
	tl := g.tracing()
	if tl == nil || t.flushOf != nil || t.isClock {
		return
	}
	tl.waiting[t] = len(tl.waits)
	tl.waits = append(tl.waits, result.WaitSpan{G: t.id(), On: on, From: len(g.steps), To: -1})
}

// traceWake records w woken by by: the running goroutine's ID, or
// "clock".
func (g *Guide) traceWake(w *thread, by string) {
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

// traceWant records t failing to take l.
func (g *Guide) traceWant(t *thread, l *lockState) {
	if tl := g.tracing(); tl != nil {
		tl.wants[t] = l
	}
}

// traceLoad notes on t's step at a buffered load what it read, and where
// from (-memory tso|pso).
func (g *Guide) traceLoad(t *thread, pos Pos, v any, forwarded bool) {
	if g == nil || !g.record || len(g.steps) == 0 {
		return
	}
	st := &g.steps[len(g.steps)-1]
	if st.G != t.id() {
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

// traceAccess notes when t last made a plain access at pos.
func (g *Guide) traceAccess(t *thread, pos Pos) {
	if tl := g.tracing(); tl != nil {
		tl.accessed[accessAt{t.idx, uint32(pos)}] = len(g.steps)
	}
}

// traceRace marks the two accesses of a race.
func (g *Guide) traceRace(f *result.Finding, prevT int32, cur, prev uint32) {
	tl := g.tracing()
	if tl == nil {
		return
	}
	mark := func(pos uint32, gr result.Goroutine, step int) {
		m := result.TraceMark{G: gr.ID, Op: gr.State, Pos: gr.Pos, Step: step}
		m.Src = srcpos.SourceAt(gr.Pos)
		if file, line := Pos(pos).FileLine(); file != "" {
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

// Outcome is what a guided execution g (the last one the driver followed,
// in x) showed, with f the finding it led to (nil: none).
func (x *Execution) Outcome(g *Guide, f *Finding) *result.ReplayOutcome {
	out := &result.ReplayOutcome{Steps: g.steps, Diverged: g.div, FindingStep: -1, Blocks: len(g.blocks),
		Locks: g.tl.locks, Waits: g.tl.waits, Marks: g.tl.marks, Final: x.r.deadlocks.FinalStates()}
	if f != nil {
		out.Reproduced = true
		for i, ff := range x.r.findings {
			if ff == f {
				out.FindingStep = g.found[i]
			}
		}
	}
	return out
}

// wantOf is the lock t failed to take in a traced guided execution (g
// nil: none).
func (g *Guide) wantOf(t *thread) *lockState {
	if g == nil {
		return nil
	}
	return g.tl.wants[t]
}
