package engine

import "github.com/xbtest/xbtest/result"

// Store-buffer events in the trace of a replay (xbtest -replay -trace):
// a store that enters a buffer and a drain's commit are no scheduling
// points, so the trace would show only the flushes; these steps say which
// store sat in which buffer and when a fence committed it. (A flush is a
// step of its own already: G the buffer, Op "flush", Pos the store.)

// traceBuffered records that t's store at pos entered its store buffer.
func (r *run) traceBuffered(t *thread, pos Pos) {
	r.traceStoreStep(t.id(), "store buffered", pos)
}

// traceDrained records that a fence of b's goroutine commits b's oldest
// entry.
func (r *run) traceDrained(b *storeBuf) {
	r.traceStoreStep(b.name(), "commit (fence)", b.q[b.head].where())
}

func (r *run) traceStoreStep(g, op string, pos Pos) {
	gd := r.guide
	if !r.trace || gd == nil || len(gd.steps) >= maxSteps {
		return
	}
	if e := pos.Expr(); e != "" {
		op += " " + e
	}
	gd.steps = append(gd.steps, result.TraceStep{G: g, Op: op, Pos: pos.String(), Block: gd.i})
}
