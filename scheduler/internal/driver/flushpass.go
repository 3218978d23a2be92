package driver

// Under -memory tso|pso the exploration runs in passes over the store
// buffers (package storebuf): each pass after the first starts the
// exploration over with a fresh strategy, keeping the findings.

// nextFlushPass is called when a pass has explored its last schedule or
// learnt a racy location: it reports whether another pass starts (and
// starts it), keeping the findings.
func (d *driver) nextFlushPass(learnt bool) bool {
	if !d.known.NextFlushPass(d.cfg, learnt, d.stats.Schedules) {
		return false
	}
	d.strat = newStrategy(d.cfg, nil)
	d.restarts++
	return true
}

// noteFlushPasses says in the result what the passes did.
func (d *driver) noteFlushPasses() {
	if d.res.Replay != nil {
		return
	}
	if n := d.known.FlushPassesNote(d.cfg, d.res.Complete, d.stats.Schedules); n != "" {
		d.Note(n)
	}
}
