package engine

import "github.com/xbtest/xbtest/settings"

// Calls into code xbtest does not rewrite (the standard library, a
// dependency left as it is) under -memory tso|pso: the rewriter drains the
// goroutine's buffers before such a call when it passes anything through
// which the callee can reach memory (package storebuf's doc says why).

// DrainBeforeForeignCall drains the running goroutine's store buffers, if
// it has buffered stores.
func DrainBeforeForeignCall() {
	r, t := enter()
	if r == nil || r.mem == settings.SC || t.sb.Pending == 0 {
		return
	}
	r.buf.Drain(&t.sb)
}
