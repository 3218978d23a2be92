package engine

// Fences weaker than MFENCE (package lockfree's calls, which the rewriter
// replaces by these; a compare-and-swap that is no fence is G's
// RelaxedCASStart): what they do to buffered stores is package storebuf's
// (its doc, "Fences").

// AcquireFence is lockfree.AcquireFence: no effect on a store-buffer
// machine (see above).
func AcquireFence() {}

// ReleaseFence is lockfree.ReleaseFence: under PSO the running
// goroutine's stores buffered so far commit before its next store.
func ReleaseFence() {
	if r, t := enter(); r != nil {
		r.buf.ReleaseFence(&t.sb)
	}
}
