package engine

import "github.com/xbtest/xbtest/settings"

// Calls into code xbtest does not rewrite (the standard library, a
// dependency left as it is) under -memory tso|pso.
//
// That code reads and writes memory directly: it does not see the calling
// goroutine's buffered stores, and its own stores skip the buffer, so the
// older buffered ones would commit after them. Neither can happen on the
// hardware (a goroutine's loads forward from its own buffer; a FIFO commits
// in program order): slices.Contains(s, x) right after s[i] = x could
// answer false, and copy(dst, src) copy what src held before. So the
// rewriter drains the goroutine's buffers before such a call when it
// passes anything through which the callee can reach memory (a pointer, a
// slice, a map, an interface...): the call behaves as if fenced, fewer
// behaviours than the hardware has, never more. The drain is not a
// scheduling event of its own (as a load's drain over an overlapping store
// is not): with an empty buffer it does nothing, so code that does not
// store before such calls explores exactly what it did before.

// DrainBeforeForeignCall drains the running goroutine's store buffers, if
// it has buffered stores.
func DrainBeforeForeignCall() {
	r, t := enter()
	if r == nil || r.mem == settings.SC || t.pending == 0 {
		return
	}
	r.drain(t)
}
