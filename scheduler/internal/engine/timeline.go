package engine

import (
	"fmt"
	"reflect"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// What a replay records for its timeline (xbtest -replay -trace) besides
// the scheduling points: the locks each goroutine holds from acquisition to
// release, each wait from parking to waking and who woke it, the accesses of
// the races found, each step's source line and store buffer, and every
// goroutine's state at the end. Only guided executions with tracing on
// (Replay) record it; the engine calls in at a handful of places, each a
// single line guarded by r.trace.

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
func (r *run) tracing() *timeline {
	if !r.trace || r.guide == nil || len(r.guide.steps) >= maxSteps {
		return nil
	}
	if r.guide.tl.open == nil {
		r.guide.tl.reset()
	}
	return &r.guide.tl
}

// traceStep completes a step of t at a scheduling point: its source line
// and its store buffer.
func (r *run) traceStep(t *thread, st *result.TraceStep, src string) {
	st.Src = src
	owner := t
	if t.flushOf != nil {
		owner = t.flushOf.owner
	}
	for _, b := range owner.bufs {
		for _, e := range b.q[b.head:] {
			st.Buffered = append(st.Buffered, describeStore(e))
		}
	}
}

// describeStore says what a buffered store writes where: "x = 1
// (file.go:12)", the variable as the source names it.
func describeStore(e bufEntry) string {
	p := e.where()
	name := p.Expr()
	if name == "" {
		name = "?"
		if file, line := p.fileLine(); file != "" {
			name = sourceLine(file, line)
		}
	}
	val := "…"
	if v, ok := e.(interface{ value() any }); ok {
		val = showValue(v.value())
	}
	return name + " = " + val + " (" + p.String() + ")"
}

func (e *typedEntry[T]) value() any { return e.v }

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

// traceLock records t taking (or letting go of) l.
func (r *run) traceLock(t *thread, l *lockState, take bool) {
	tl := r.tracing()
	if tl == nil {
		return
	}
	now := len(r.guide.steps)
	if take {
		if tl.open[l] == nil {
			tl.open[l] = map[*thread]int{}
		}
		tl.open[l][t] = len(tl.locks)
		tl.locks = append(tl.locks, result.LockSpan{G: t.id(), Lock: r.lockName(l), Read: l.writer != t, From: now, To: -1})
		return
	}
	if i, ok := tl.open[l][t]; ok {
		tl.locks[i].To = now
		delete(tl.open[l], t)
	}
}

// tracePark records t starting to wait; the step that parks it comes next.
func (r *run) tracePark(t *thread, on string) {
	tl := r.tracing()
	if tl == nil || t.flushOf != nil || t.isClock {
		return
	}
	tl.waiting[t] = len(tl.waits)
	tl.waits = append(tl.waits, result.WaitSpan{G: t.id(), On: on, From: len(r.guide.steps), To: -1})
}

// traceWake records w woken by the running goroutine (or a timer).
func (r *run) traceWake(w *thread) {
	tl := r.tracing()
	if tl == nil {
		return
	}
	i, ok := tl.waiting[w]
	if !ok {
		return
	}
	delete(tl.waiting, w)
	tl.waits[i].To = len(r.guide.steps)
	switch {
	case r.ticking || r.cur == nil:
		tl.waits[i].By = "clock"
	case r.cur.isClock:
		tl.waits[i].By = "clock"
	default:
		tl.waits[i].By = r.cur.id()
	}
}

// traceWant records t failing to take l.
func (r *run) traceWant(t *thread, l *lockState) {
	if tl := r.tracing(); tl != nil {
		tl.wants[t] = l
	}
}

// traceLoad notes on t's step at a buffered load what it read, and where
// from (-memory tso|pso).
func (r *run) traceLoad(t *thread, pos Pos, v any, forwarded bool) {
	if !r.trace || r.guide == nil || len(r.guide.steps) == 0 {
		return
	}
	st := &r.guide.steps[len(r.guide.steps)-1]
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
func (r *run) traceAccess(t *thread, pos Pos) {
	if tl := r.tracing(); tl != nil {
		tl.accessed[accessAt{t.idx, uint32(pos)}] = len(r.guide.steps)
	}
}

// traceRace marks the two accesses of a race.
func (r *run) traceRace(f *result.Finding, prevT int32, cur, prev uint32) {
	tl := r.tracing()
	if tl == nil {
		return
	}
	mark := func(pos uint32, g result.Goroutine, step int) {
		m := result.TraceMark{G: g.ID, Op: g.State, Pos: g.Pos, Step: step}
		m.Src = sourceAt(g.Pos)
		if file, line := Pos(pos).fileLine(); file != "" {
			m.Src = sourceLine(file, line)
		}
		tl.marks = append(tl.marks, m)
	}
	now := len(r.guide.steps)
	mark(cur, f.Goroutines[0], now)
	prevStep, ok := tl.accessed[accessAt{prevT, prev}]
	if !ok {
		prevStep = now
	}
	mark(prev, f.Goroutines[1], prevStep)
}

// finalStates describes every goroutine of the execution as it ended.
func (r *run) finalStates() []result.Goroutine {
	blockedOn := map[int32]sched.Blocked{}
	for _, b := range r.strat.Blocked() {
		blockedOn[b.Thread] = b
	}
	var gs []result.Goroutine
	for _, t := range r.threads {
		if t.flushOf != nil || t.isClock {
			continue
		}
		g := result.Goroutine{ID: t.id(), State: r.stateOf(t)}
		if t.status == stWaiting {
			g.State = "waiting" // also the goroutine whose park ended the execution
		}
		if t.status != stExited {
			g.Pos = firstUserPos(t.pcs)
		}
		for _, l := range t.held {
			g.Holds = append(g.Holds, r.lockName(l))
		}
		var want *lockState
		if b, ok := blockedOn[t.idx]; ok && t.status != stExited {
			g.State = "blocked"
			if b.PC != 0 {
				g.Pos = firstUserPos([]uintptr{b.PC})
			}
			if want = r.lockByID(b.Lock); want != nil {
				g.On = want.kind()
			} else {
				g.On = "mutex"
			}
		} else if l := r.wantOf(t); l != nil && t.status != stExited {
			g.State, g.On, want = "blocked", l.kind(), l
		} else if t.status == stWaiting {
			g.On = t.on
			if t.onObj >= 0 {
				want = r.lockByID(t.onObj) // an RWMutex writer waiting for readers
			}
		}
		if want != nil {
			g.Note = "wants " + r.lockName(want)
			for _, o := range want.owners() {
				if o != t {
					g.WaitsFor = append(g.WaitsFor, o.id())
				}
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// Outcome is what a guided execution g (the last one the driver followed,
// in x) showed, with f the finding it led to (nil: none).
func (x *Execution) Outcome(g *Guide, f *Finding) *result.ReplayOutcome {
	out := &result.ReplayOutcome{Steps: g.steps, Diverged: g.div, FindingStep: -1, Blocks: len(g.blocks),
		Locks: g.tl.locks, Waits: g.tl.waits, Marks: g.tl.marks, Final: x.r.finalStates()}
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

// wantOf is the lock t failed to take in a traced guided execution.
func (r *run) wantOf(t *thread) *lockState {
	if r.guide == nil {
		return nil
	}
	return r.guide.tl.wants[t]
}
