package engine

import (
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
)

// Store-buffer events in the trace of a replay (xbtest -replay -trace):
// a store that enters a buffer and a drain's commit are no scheduling
// points, so the trace would show only the flushes; these steps say which
// store sat in which buffer and when a fence committed it. (A flush is a
// step of its own already: G the buffer, Op "flush", Pos the store.)

// traceBuffered records that t's store at pos entered its store buffer.
func (g *Guide) traceBuffered(t *thread, pos Pos) {
	g.traceStoreStep(t.id(), "store buffered", pos)
}

// traceDrained records that a fence of b's goroutine commits b's oldest
// entry.
func (g *Guide) traceDrained(r *run, b *storebuf.Buf) {
	if g == nil || !g.record {
		return // the buffer's name is not built for nothing
	}
	g.traceStoreStep(r.bufName(b), "commit (fence)", Pos(b.Entries()[0].Where()))
}

func (gd *Guide) traceStoreStep(g, op string, pos Pos) {
	if gd == nil || !gd.record || len(gd.steps) >= maxSteps {
		return
	}
	if e := pos.Expr(); e != "" {
		op += " " + e
	}
	gd.steps = append(gd.steps, result.TraceStep{G: g, Op: op, Pos: pos.String(), Block: gd.i})
}
