package engine

// testing/synctest's bubbles.
//
// synctest.Test(t, f) runs f on a new goroutine, the root of a bubble; every
// goroutine a member starts (a go statement, an AfterFunc's function)
// joins the bubble (newThread). The caller waits, parked on
// "synctest.Test", until every member has exited: the last to exit wakes
// it (exitThread), with a happens-before edge from each member's end, as
// Go's race detector has. Members blocked for good leave the caller
// waiting too: an ordinary deadlock at the end of the path, which is what
// Go reports (it panics in Test).
//
// synctest.Wait parks its caller on "synctest.Wait" until every other
// goroutine is blocked: the clock wakes it where time would otherwise
// advance because no goroutine can run (vclock's Advance calls the host's
// WakeWaiters first, in an exploration as in a replayed prefix, so a
// schedule replays), and time does not move. The wake-up carries an edge
// from every member of the bubble, as in Go. "No goroutine can run" is
// stricter than Go's "every other member is durably blocked": goroutines
// outside the bubble must be blocked too, and a goroutine blocked on a
// mutex counts as blocked (Go would wait for it, forever if the holder is
// durably blocked).
//
// While a bubble is live, timers do not fire eagerly (vclock's eager.go):
// inside a bubble Go promises synctest's rule. Once the root has exited
// while other members remain, time stops (Go: "main bubble goroutine has
// exited but blocked goroutines remain"): a member asleep then is stuck.

// bubble is one synctest.Test's bubble.
type bubble struct {
	live     int       // members that have not exited
	members  []*thread // every member, for the happens-before edges
	root     *thread   // f's goroutine
	rootDone bool
	caller   *thread // parked in synctest.Test until live == 0
	waiter   *thread // parked in synctest.Wait, or nil
}

// join makes t, a new goroutine, a member of b.
func (b *bubble) join(t *thread) {
	t.bubble = b
	b.live++
	b.members = append(b.members, t)
}

// SynctestRun runs f on a new goroutine, the root of a new bubble, and
// waits for every goroutine of the bubble to exit (synctest.Test's wait).
// Outside an execution f runs on a plain goroutine and is waited for, with
// no bubble. It panics when called from a bubble, as Go does.
func SynctestRun(f func()) {
	r, t := enter()
	if r == nil {
		done := make(chan struct{})
		go func() { defer close(done); f() }()
		<-done
		return
	}
	if t.bubble != nil {
		panic("synctest.Run called from within a synctest bubble")
	}
	r.event(t)
	b := &bubble{caller: t}
	c := r.newThread(t, f)
	b.root = c
	b.join(c)
	r.bubbles = append(r.bubbles, b)
	r.syncBubbles()
	r.race.Start(t.idx, c.idx)
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
	r.parkHere(t, "synctest.Test", -1)
}

// SynctestWait is synctest.Wait: it parks the caller until no goroutine
// can run (see above). It panics outside a bubble, and when another member
// of the bubble is waiting already, as Go does. Outside an execution it
// panics: there is no bubble to wait for.
func SynctestWait() {
	r, t := enter()
	if r == nil || t.bubble == nil {
		panic("goroutine is not in a bubble")
	}
	b := t.bubble
	if b.waiter != nil {
		panic("wait already in progress")
	}
	r.event(t)
	b.waiter = t
	r.syncBubbles()
	r.parkHere(t, "synctest.Wait", -1)
}

// bubbleExit is t's exit from its bubble: the last member to exit wakes
// the caller of synctest.Test.
func (r *run) bubbleExit(t *thread) {
	b := t.bubble
	b.live--
	if t == b.root {
		b.rootDone = true
	}
	if b.live == 0 {
		for _, m := range b.members {
			r.race.Edge(m.idx, b.caller.idx)
		}
		r.wakeUp(b.caller, -1)
		if i := indexOf(r.bubbles, b); i >= 0 {
			r.bubbles = append(r.bubbles[:i], r.bubbles[i+1:]...)
		}
	}
	r.syncBubbles()
}

func indexOf(bs []*bubble, b *bubble) int {
	for i, x := range bs {
		if x == b {
			return i
		}
	}
	return -1
}

// syncBubbles tells the clock about the bubbles (vclock's SetBubbles).
func (r *run) syncBubbles() {
	waiters, stopped := 0, false
	for _, b := range r.bubbles {
		if b.waiter != nil {
			waiters++
		}
		stopped = stopped || b.rootDone && b.live > 0
	}
	r.clock.SetBubbles(len(r.bubbles), waiters, stopped)
}

// WakeWaiters implements vclock.Host: no goroutine can run, so every
// goroutine parked in synctest.Wait wakes, in the order of the bubbles,
// before time moves. To the strategy it is a tick (Ticked): the block
// before it cannot merge with the next, which a schedule file must keep
// apart for a replay to wake the waiter at the same point.
func (h clockHost) WakeWaiters() bool {
	r := h.r
	woke := false
	for _, b := range r.bubbles {
		w := b.waiter
		if w == nil {
			continue
		}
		b.waiter = nil
		for _, m := range b.members {
			r.race.Edge(m.idx, w.idx)
		}
		r.wakeUp(w, -1)
		woke = true
	}
	if woke {
		r.syncBubbles()
		if r.exploring {
			r.strat.Ticked()
		}
	}
	return woke
}
