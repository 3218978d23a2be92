package engine

import (
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/guide"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// The engine's side of guided executions (xbtest -replay, and the
// minimisation of a finding's schedule). The schedule, how far an
// execution has followed it and the timeline it records are package
// guide's (its doc says how a schedule is followed); the engine counts a
// block's scheduling points (run.bpoints), describes the point a goroutine
// is at (anchor), hands a point the schedule does not decide to the
// explorer, and tells the guide what the timeline shows, each call guarded
// by r.trace.

// Guide is the schedule a guided execution follows, and what it observed
// (package guide).
type Guide = guide.Guide

// NewGuide returns a guide along blocks for x's guided executions; with
// check, it checks that each block ends at the recorded operation.
func NewGuide(x *Execution, blocks []result.Block, check bool) *Guide {
	return guide.New(guideHost{&x.r}, blocks, check)
}

// guideHost is the execution as the guide's host (guide.Host), and the
// engine's side of guided executions: their scheduling points, their
// divergences, and the anchor a schedule records of a point. An adapter,
// so that run's own methods stay the execution's.
type guideHost struct{ r *run }

var _ guide.Host = guideHost{}

// CatchUp implements guide.Host.
func (h guideHost) CatchUp(i int32) {
	r := h.r
	r.clock.CatchUp(r.cur.idx, i, len(r.natives) > 0)
}

// NotEnabled implements guide.Host.
func (h guideHost) NotEnabled(i int32) string {
	why := "has exited or does not exist"
	if t := h.r.threadAt(i); t != nil {
		switch {
		case t.status == stWaiting:
			why = "is waiting on " + t.on
		case t.status == stRunnable:
			why = "is blocked on a lock"
		}
	}
	return why
}

// point is run.point for a guided execution.
func (h guideHost) point(t *thread, kind pointKind) *thread {
	r, g := h.r, h.r.guide
	if r.multi {
		r.bpoints++
	}
	if r.trace && g.Stepping() {
		a := h.anchor(t, kind)
		g.Step(result.TraceStep{G: t.id(), Op: a.Op, Pos: a.Pos, Src: a.Src, Buffered: h.buffered(t)})
	}
	if !g.Following() {
		return r.dispatch(t, kind)
	}
	preempt := kind == ptBoundary || kind == ptSpawn || kind == ptWake || kind == ptYield || kind == ptPass
	if b := g.Block(); r.bpoints < b.Points {
		if !preempt {
			h.diverged(t, g.Short(t.id(), r.bpoints, h.anchor(t, kind)))
		}
		return t
	}
	if g.Checks() {
		if a := h.anchor(t, kind); !g.EndsAt(a) {
			h.diverged(t, g.WrongEnd(t.id(), a))
		}
	}
	g.Advance()
	r.bpoints = 0
	var next *thread
	if preempt {
		next = r.threadOf(r.strat.Preempt(kind != ptSpawn && kind != ptWake))
	} else {
		next = r.dispatch(t, kind)
	}
	if g.Diverged() != "" {
		r.end(EndDiverged)
		t.sleep()
	}
	return next
}

// diverged stops the execution: t's block does not follow the schedule
// (why).
func (h guideHost) diverged(t *thread, why string) {
	h.r.guide.SetDiverged(why)
	h.r.end(EndDiverged)
	t.sleep()
}

// anchor describes the scheduling point t is at (trace mode: t.pcs is the
// stack of its last event).
func (h guideHost) anchor(t *thread, kind pointKind) result.Block {
	b := result.Block{Points: h.r.bpoints, Preempt: kind == ptBoundary || kind == ptSpawn || kind == ptWake || kind == ptYield || kind == ptPass}
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

// buffered is what a step of t at a scheduling point shows of its store
// buffer: the stores it holds (a flush: those of the goroutine that made
// them).
func (h guideHost) buffered(t *thread) []string {
	var out []string
	owner := t
	if t.flushOf != nil {
		owner = h.r.threads[t.flushOf.Owner()]
	}
	for _, b := range owner.sb.Bufs() {
		for _, e := range b.Entries() {
			out = append(out, guide.DescribeStore(e))
		}
	}
	return out
}
