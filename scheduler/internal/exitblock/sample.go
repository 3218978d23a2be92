package exitblock

// Sampling (Options.Sampler): one path per sample, each from the start of
// the test body, the sampler taking every choice a tree walk would branch
// at: the thread of each block (loop, choose), notify and select choices
// (Choose), orders of equal timer deadlines (ChooseTick). Nothing is
// pushed; a failed lock acquisition still restarts the execution at the
// block's start with the thread blocked (LockFailed), as in the tree. A
// forced store-buffer flush still runs first (flushorder.go: no other
// order reaches anything new). Not sampled: the points in the middle of a
// block where a tree walk's spawn branch stops a parent right after its go
// statement (a sample switches only at block boundaries).

// nextSample is Next under sampling: a retry of the same sample after a
// failed lock acquisition, else the next sample from the start.
func (ex *Explorer) nextSample(aborted bool) bool {
	if aborted && !ex.abandoned {
		return true
	}
	ex.abandoned = false
	ex.path = ex.path[:0]
	ex.start = branch{}
	ex.start.st.enabled.Add(0)
	if !ex.opt.Sampler.StartSample() {
		ex.done = true
		return false
	}
	return true
}
