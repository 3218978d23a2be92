package exitblock

// Flushes first. Under -memory tso|pso every store buffer has a flush
// pseudo-thread (scheduler/internal/storebuf). ExitBlock may choose any enabled
// thread to run next ("curThread = choose a member of enabled", Fig 2.7):
// the branch pushed at the end of its block explores the others first, so
// the choice orders the exploration without changing what it covers. The
// thesis's tester continues the current thread; with store buffers that
// keeps every store buffered as long as possible, and the first schedules
// explored are the most relaxed ones. So an enabled flusher runs first,
// and after it its owner goes on: the first schedule is the SC-like one,
// and the relaxed orders are the branches.
//
// A forced flush (sched.Engine.Flusher: a commit no other goroutine can
// observe the timing of, scheduler/internal/storebuf) is chosen before anything
// else, and its block pushes no branch in which another thread runs first:
// the engine has argued that such an order reaches nothing new.

// choose picks the thread of the next block when neither a director nor a
// plan does.
func (ex *Explorer) choose() int32 {
	var forced, flusher int32 = -1, -1
	ex.st.enabled.Each(func(u int32) {
		if owner, f := ex.eng.Flusher(u); owner >= 0 {
			if f && forced < 0 {
				forced = u
			}
			if flusher < 0 {
				flusher = u
			}
		}
	})
	switch {
	case forced >= 0:
		return forced
	case ex.opt.Sampler != nil:
		return ex.opt.Sampler.Pick(&ex.st.enabled, ex.blk.thread)
	case flusher >= 0:
		return flusher
	}
	if cur := ex.blk.thread; cur >= 0 {
		if owner, _ := ex.eng.Flusher(cur); owner >= 0 && ex.st.enabled.Has(owner) {
			return owner // the flushes done, the goroutine that stored goes on
		}
		if ex.st.enabled.Has(cur) {
			return cur // the thesis's tester continues the current thread
		}
	}
	return ex.st.enabled.First()
}

// forcedFlush reports whether the block t starts now is a forced flush.
func (ex *Explorer) forcedFlush(t int32) bool {
	if ex.dir != nil || ex.opt.Oracle {
		return false
	}
	_, forced := ex.eng.Flusher(t)
	return forced
}

// ownFlusher reports whether u is a flush pseudo-thread of t's buffers: its
// blocks bring t nothing another goroutine did (fairness, yields).
func (ex *Explorer) ownFlusher(u, t int32) bool {
	owner, _ := ex.eng.Flusher(u)
	return owner >= 0 && owner == t
}
