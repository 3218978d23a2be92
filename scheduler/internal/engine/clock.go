package engine

import (
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"slices"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/result"
)

// Virtual time.
//
// Under a controlled scheduler real time is meaningless (one goroutine runs
// at a time, at the explorer's pace) and slow, so rewritten code reads a
// virtual clock, as under testing/synctest: it starts at a fixed epoch in
// every execution and moves only when no controlled goroutine can run, to
// the earliest pending deadline (the explorer's "tick", see
// explorer.loop). A tick fires the timers due at the new instant; the order
// in which they fire, and whether goroutines they woke run before the rest
// fire, are choice points of the path, like Cond.Signal's (see fireDue).
//
// A tick's choices are recorded after the choices of the block that ended
// just before it (the last block before nobody could run). A replayed prefix
// ticks where the original execution did: after a block, if the goroutine
// that runs next cannot run (it sleeps or waits on a timer channel, or does
// not exist yet, an AfterFunc's), which is exactly when the explorer ticked,
// since time advances only when the enabled set is empty and every goroutine
// a tick enables was waiting. (A wait for a channel xbtest does not control,
// the last resort of a tick, native.go, is caught up with the same way.)

// epoch is virtual time zero, the same for every execution, so that time.Now
// reads the same on every replay of a schedule (and in every process).
var epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

type timerKind uint8

const (
	tkSleep timerKind = iota // wakes a goroutine in time.Sleep
	tkChan                   // sends the time on a Timer's or Ticker's channel
	tkFunc                   // starts a goroutine (time.AfterFunc)
	tkCtx                    // cancels a context at its deadline
)

// vtimer is a pending deadline of the virtual clock.
type vtimer struct {
	kind    timerKind
	when    time.Duration // since epoch
	period  time.Duration // a ticker's
	seq     int32         // creation order: the default order of equal deadlines
	pending bool
	anon    bool    // tkChan of time.After or time.Tick: nobody can Stop or Reset it
	t       *thread // tkSleep: the sleeper; tkFunc: the goroutine that called AfterFunc
	ch      chan time.Time
	m       *chanState
	fn      func()
	ctx     *vctx
}

// clock is the virtual clock of one execution.
type clock struct {
	now     time.Duration
	seq     int32
	pending []*vtimer
	// noTickers: the test has returned, tickers fire no more (advance)
	noTickers bool
	timers    map[*time.Timer]*vtimer
	tickers   map[*time.Ticker]*vtimer
}

func (c *clock) reset() {
	c.now, c.seq, c.noTickers = 0, 0, false
	clear(c.pending)
	c.pending = c.pending[:0]
	if c.timers == nil {
		c.timers = map[*time.Timer]*vtimer{}
		c.tickers = map[*time.Ticker]*vtimer{}
	}
	clear(c.timers)
	clear(c.tickers)
}

// start makes tm pending, due d from now (at once if d <= 0).
func (c *clock) start(tm *vtimer, d time.Duration) {
	tm.when = c.now + max(d, 0)
	if !tm.pending {
		tm.pending = true
		c.seq++
		tm.seq = c.seq
		c.pending = append(c.pending, tm)
	}
}

// stop makes tm no longer pending and reports whether it was.
func (c *clock) stop(tm *vtimer) bool {
	if !tm.pending {
		return false
	}
	tm.pending = false
	if i := slices.Index(c.pending, tm); i >= 0 {
		c.pending = slices.Delete(c.pending, i, i+1)
	}
	return true
}

// idle: a channel timer nobody waits on. As in Go 1.23 and later, a timer
// channel is unbuffered: the value is sent when a receiver comes (Recv and
// Select take it at once from a timer that is due, see takeTimer), so a
// channel timer with no goroutine parked on its channel has nothing to do
// at its deadline and does not move the clock. A time.After that lost its
// select, a ticker nobody reads, never tick.
func (tm *vtimer) idle() bool {
	return tm.kind == tkChan && !hasLive(tm.m.recvq)
}

// asleep reports whether tm does not fire now: an idle channel timer, or a
// ticker once the test has returned (see advance).
func (c *clock) asleep(tm *vtimer) bool {
	return tm.idle() || c.noTickers && tm.period > 0
}

// next returns the earliest deadline of a timer that can fire.
func (c *clock) next() (time.Duration, bool) {
	var when time.Duration
	found := false
	for _, tm := range c.pending {
		if c.asleep(tm) {
			continue
		}
		w := max(tm.when, c.now)
		if !found || w < when {
			when, found = w, true
		}
	}
	return when, found
}

// due returns the timers due now, in creation order.
func (c *clock) due() []*vtimer {
	var out []*vtimer
	for _, tm := range c.pending {
		if tm.when <= c.now && !c.asleep(tm) {
			out = append(out, tm)
		}
	}
	slices.SortFunc(out, func(a, b *vtimer) int { return int(a.seq - b.seq) })
	return out
}

// dueNow reports whether tm is a pending timer whose deadline has come.
func (c *clock) dueNow(tm *vtimer) bool { return tm.pending && tm.when <= c.now }

// takeTimer is the send of a due channel timer: the time of its deadline;
// a ticker moves to its next deadline after now (ticks missed while nobody
// received are dropped, as Go's are), a timer stops.
func (c *clock) takeTimer(tm *vtimer) time.Time {
	v := epoch.Add(tm.when)
	if tm.period > 0 {
		tm.when += ((c.now-tm.when)/tm.period + 1) * tm.period
	} else {
		c.stop(tm)
	}
	return v
}

// advance is a tick: it moves the clock to the next deadline and fires the
// timers due there, instant after instant, until enough() holds or no timer
// can fire. With no timer left, goroutines waiting on channels xbtest does
// not control are waited for for real (awaitNative). t is the goroutine whose code runs the tick (the one that ended
// the last block). It reports whether enough() holds.
//
// Once the test goroutine has returned, tickers no longer fire: the test is
// over, as under go test, and a goroutine left looping on a ticker (a
// cache's janitor) would keep the path going forever; it is neither run
// further nor a leak (see checkStuck). Other timers still fire, so that a
// goroutine that wakes up late and then blocks forever is a leak.
func (r *run) advance(t *thread, enough func() bool) bool {
	c := &r.clock
	c.noTickers = r.testReturned()
	for !enough() {
		when, ok := c.next()
		if !ok && (len(r.natives) == 0 || !r.awaitNative()) {
			return false
		}
		if r.exploring {
			r.strat.Ticked()
			if g := r.guide; g != nil && r.trace && len(g.steps) < maxSteps {
				g.steps = append(g.steps, result.TraceStep{Op: "time advances to +" + when.String(), Block: g.i})
			}
		}
		if ok {
			c.now = when
			r.fireDue(t)
			if r.syncClock(nil) {
				// A timer due soon after may fire eagerly: the clock is a
				// thread that can run, in a replayed prefix as while
				// exploring (eager.go).
				return true
			}
		}
	}
	return true
}

// testReturned reports whether the test goroutine has returned: the test
// is over and tickers fire no more (see advance).
func (r *run) testReturned() bool {
	return len(r.threads) > 0 && r.threads[0].status == stExited
}

// timerWakes reports whether a pending timer would wake t: it sleeps, or
// waits on a timer's channel or on the Done channel of a context with a
// deadline. Such a goroutine, left behind when the test returns (waiting
// for a ticker, which fires no more), is not blocked forever.
func (r *run) timerWakes(t *thread) bool {
	waits := func(m *chanState) bool {
		if m == nil {
			return false
		}
		for _, sg := range m.recvq {
			if sg.t == t && sg.live() {
				return true
			}
		}
		return false
	}
	var ctxWaits func(c *vctx) bool
	ctxWaits = func(c *vctx) bool {
		if c == nil {
			return false
		}
		if waits(c.m) {
			return true
		}
		for _, k := range c.children {
			if ctxWaits(k) {
				return true
			}
		}
		return false
	}
	for _, tm := range r.clock.pending {
		switch tm.kind {
		case tkSleep:
			if tm.t == t {
				return true
			}
		case tkChan:
			if waits(tm.m) {
				return true
			}
		case tkCtx:
			if ctxWaits(tm.ctx) {
				return true
			}
		}
	}
	return false
}

// catchUp ticks in a replayed prefix until goroutine n can run (see the
// comment at the top).
func (r *run) catchUp(t *thread, n int32) {
	if n < 0 || len(r.clock.pending) == 0 && len(r.natives) == 0 {
		return
	}
	r.advance(t, func() bool {
		return int(n) < len(r.threads) && r.threads[n].status == stRunnable
	})
}

// fireDue fires the timers due now. Some fire at once, in creation order:
// a sleep's, and a time.After's or time.Tick's whose channel only plain
// receives wait on. Only the goroutines they wake can observe them (nobody
// can stop them, and a receive on a due timer's channel takes its value
// anyway), so their order with the rest changes nothing the explorer does
// not already order (the woken goroutines' blocks). Any other timer can be
// observed by goroutines other than those it wakes (a select over it and
// another channel, Stop's or Reset's result, Err), so its order is a
// choice: which of them fires next, or, once the instant has woken some
// goroutine, none (-1): the woken goroutines run first, as they could in a
// real program, and the rest fire when every goroutine blocks again.
func (r *run) fireDue(t *thread) {
	r.ticking = true
	r.tickWoke = 0
	defer func() { r.ticking = false }()
	for {
		due := r.clock.due()
		if len(due) == 0 {
			return
		}
		var opts []int32
		for _, tm := range due {
			if tm.firesAtOnce() {
				r.fire(t, tm)
				r.pollNativeAfterFire()
				opts = nil
				break
			}
			opts = append(opts, tm.seq)
		}
		if opts == nil {
			continue
		}
		if r.tickWoke > 0 {
			opts = append(opts, -1)
		}
		s := opts[0]
		if len(opts) > 1 {
			s = r.tickChoice(t, opts)
		}
		if s < 0 {
			return
		}
		for _, tm := range due {
			if tm.seq == s {
				r.fire(t, tm)
				r.pollNativeAfterFire()
			}
		}
	}
}

// firesAtOnce: see fireDue.
func (tm *vtimer) firesAtOnce() bool {
	switch tm.kind {
	case tkSleep:
		return true
	case tkChan:
		if !tm.anon {
			return false
		}
		for _, sg := range tm.m.recvq {
			if sg.sel != nil && sg.live() {
				return false
			}
		}
		return true
	}
	return false
}

// pollNativeAfterFire wakes the goroutines waiting on channels xbtest does
// not control that a timer readied (the Done channel of a context derived,
// by code xbtest does not control, from one the timer cancelled).
func (r *run) pollNativeAfterFire() {
	if len(r.natives) > 0 {
		r.pollNative(nil)
	}
}

// tickChoice takes a choice among equal deadlines; a replayed tick takes
// the recorded one.
func (r *run) tickChoice(t *thread, opts []int32) int32 {
	if r.exploring {
		if g := r.guide; g != nil {
			if c, recorded, why := g.tickChoice(opts); recorded {
				if why != "" {
					r.guideDiverged(r.cur, why)
				}
				r.strat.TickChosen(c)
				return c
			}
		}
		return r.strat.ChooseTick(opts)
	}
	d := &r.replay[r.k]
	if r.choiceN >= len(d.Choices) || !slices.Contains(opts, d.Choices[r.choiceN]) {
		r.diverged(t, "a recorded order of timers with equal deadlines is not available")
	}
	c := d.Choices[r.choiceN]
	r.choiceN++
	return c
}

// fire performs what tm does at its deadline.
func (r *run) fire(t *thread, tm *vtimer) {
	c := &r.clock
	switch tm.kind {
	case tkSleep:
		c.stop(tm)
		r.wakeUp(tm.t, -1)
	case tkChan:
		if sg := popLive(&tm.m.recvq); sg != nil {
			r.deliver(sg, c.takeTimer(tm), true)
		}
	case tkFunc:
		c.stop(tm)
		r.spawnFor(t, tm.t, tm.fn, true, unsafe.Pointer(tm))
	case tkCtx:
		c.stop(tm)
		tm.ctx.cancel(t, true, true, errDeadline, tm.ctx.timeoutCause)
	}
}

// spawnFor starts fn on a new goroutine, a child of parent: an AfterFunc's
// function. byClock: started by a tick (no block is under way, the child is
// simply enabled); otherwise by t's block, like a go statement. A non-nil
// key carries the happens-before edge from the AfterFunc call.
func (r *run) spawnFor(t, parent *thread, fn func(), byClock bool, key unsafe.Pointer) *thread {
	c := r.newThread(parent, fn)
	if byClock {
		r.tickWoke++
		r.race.Start(-1, c.idx)
		if key != nil {
			r.race.Observe(c.idx, key, races.RoleSend)
		}
		if r.exploring {
			r.strat.Woken(c.idx, -1) // enabled, as a goroutine a timer wakes
		}
		return c
	}
	r.race.Start(t.idx, c.idx)
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
	return c
}
