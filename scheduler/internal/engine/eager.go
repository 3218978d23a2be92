package engine

import (
	"time"
	"unsafe"
)

// Eager timers.
//
// Under testing/synctest's rule (clock.go) a timer fires only when no
// goroutine can run. Go promises no such thing: a 1 ns timer or ticker
// usually fires while other goroutines are still runnable, and code that
// is only wrong in that order (a select that takes the timer's case before
// the goroutine that was to close the other channel has run) passes every
// schedule under that rule and hangs under go test. With
// Config.Timers > 0 a started timer may also fire at any scheduling
// point, ahead of goroutines that could run, once the timers due before it
// have fired, if its deadline is within that horizon of the virtual now
// (settings.Eager: whatever its deadline). Time stays virtual: firing early
// moves the clock to the deadline at once.
//
// The clock is then a pseudo-thread, like a store buffer's flusher
// (tso.go): it is runnable while a timer can fire so, and each of its
// blocks moves the clock to the next deadline (if nothing is due yet) and
// fires, at once, every due timer that only wakes the goroutine waiting
// for it (see firesAtOnce), else one due timer, chosen like a select case.
// The explorer orders its blocks as any thread's, so every order of
// firings against the blocks of goroutines is explored. ExitBlock-RW's
// argument holds as for a flush: the clock's block writes the clock (a
// location that starting, stopping or resetting a timer writes and
// time.Now reads) and the channels it sends on, so any block whose order
// with a firing matters intersects it; a block that makes a timer able to
// fire (a receive that waits on a timer's channel, a timer started) wakes
// the clock, as a notify wakes a thread. A timer started in the middle of
// a block may fire right after it: that is a spawn branch (enabledMidBlock),
// as for a go statement.
//
// Fairness. A goroutine that loops on a fast ticker alternates with the
// clock's blocks, and the path in which the two run forever while another
// goroutine could run is infinite; Go's scheduler runs that goroutine
// meanwhile. So the clock fires eagerly only while no goroutine that can
// run has waited Config.FairBlocks blocks or more since it last ran or was
// woken (starved); then it waits for the goroutines to run, as a goroutine
// that polls gives way (internal/exitblock, "Fairness"). For the same reason the
// clock's blocks do not reset the poll counts of goroutines, nor end the
// giving way of one that gave way. What is not explored: more than
// FairBlocks eager firings while a goroutine waits to run.

// clockCell stands for the virtual clock in read/write sets.
var clockCell byte

func init() {
	registerGlobal(unsafe.Pointer(&clockCell), 1, "the virtual clock", nil)
}

// clockAccess records an access of the clock for ExitBlock-RW when timers
// may fire eagerly (otherwise no block is ordered against a firing).
func (r *run) clockAccess(write bool) {
	if r.exploring && r.cfg.Timers.Horizon() > 0 {
		r.strat.Access(uintptr(unsafe.Pointer(&clockCell)), 1, write)
	}
}

// startTimer makes tm pending, due d from now. It is a write of the clock
// (when due within the horizon);
// a timer that can fire eagerly makes the clock runnable in the middle of
// t's block, a scheduling point as a go statement is (wokeMidBlock).
func (r *run) startTimer(t *thread, tm *vtimer, d time.Duration) {
	r.clock.start(tm, d)
	if d <= r.cfg.Timers.Horizon() {
		// A timer due later than the horizon cannot be the one the
		// clock's next block fires (that one is due within it), so
		// starting it commutes with that block.
		r.clockAccess(true)
	}
	if r.syncClock(t) {
		r.wokeMidBlock(t)
		// Whatever the hook does next (a sleep parks) is a point of its
		// own: a decision names the event its block ends at.
		r.event(t)
	}
}

// eagerFireable reports whether a timer may fire ahead of runnable
// goroutines now.
func (r *run) eagerFireable() bool {
	c := &r.clock
	c.noTickers = r.testReturned()
	when, ok := c.next()
	return ok && when-c.now <= r.cfg.Timers.Horizon() && !r.starved()
}

// starved reports whether a goroutine that can run has waited FairBlocks
// blocks or more since it last ran or was woken: the clock then waits for
// it to run (see "Fairness" above). Blocks are counted as switches from one
// goroutine to another (blockStarted): a schedule file joins consecutive
// blocks of one goroutine (mergePath), and its replay must reach the same
// verdict here as the execution it was recorded from.
func (r *run) starved() bool {
	fb := r.cfg.FairBlocks
	if fb <= 0 {
		return false
	}
	now := r.switches
	for _, u := range r.threads {
		if !u.isClock && u.flushOf == nil && u.status == stRunnable && !u.frozen && now-u.ranAt >= fb {
			return true
		}
	}
	return false
}

// syncClock makes the clock pseudo-thread runnable when a timer can fire
// eagerly and waiting when none can; t is the thread at a scheduling
// point (the clock keeps its own state, see clockLoop). It reports
// whether it made the clock runnable.
func (r *run) syncClock(t *thread) bool {
	if r.cfg.Timers.Horizon() <= 0 || t != nil && t.isClock {
		return false
	}
	fire := r.eagerFireable()
	c := r.clockT
	switch {
	case fire && (c == nil || c.status == stWaiting):
		if c == nil {
			c = r.newThread(nil, nil)
			c.isClock = true
			c.fn = func() { r.clockLoop(c) }
			r.clockT = c
		}
		c.status = stRunnable
		c.on, c.onObj = "", -1
		if r.exploring {
			r.strat.Woken(c.idx, -1)
		}
		return true
	case !fire && c != nil && c.status == stRunnable:
		c.status = stWaiting
		c.on, c.onObj = "a timer", -1
		if r.exploring {
			r.strat.Disable(c.idx)
		}
	}
	return false
}

// clockLoop is the body of the clock pseudo-thread: each block fires what
// is due (eagerFire), then the clock goes on if another timer can fire,
// else waits until one can.
func (r *run) clockLoop(c *thread) {
	for {
		r.event(c)
		r.eagerFire(c)
		if r.eagerFireable() {
			r.yield(c)
		} else {
			r.parkHere(c, "a timer", -1)
		}
	}
}

// eagerFire is one block of the clock: if no timer is due, the clock moves
// to the next deadline; then every due timer that fires at once fires, or
// else one due timer, a choice point.
func (r *run) eagerFire(c *thread) {
	clk := &r.clock
	if !r.eagerFireable() {
		return // the block that made it so has not reached its point yet
	}
	if when, _ := clk.next(); when > clk.now {
		clk.now = when
	}
	r.clockAccess(true)
	r.ticking, r.tickWoke = true, 0
	defer func() { r.ticking = false }()
	due := clk.due()
	fired := false
	for _, tm := range due {
		if tm.firesAtOnce() {
			r.fireEager(c, tm)
			fired = true
		}
	}
	if fired || len(due) == 0 {
		return // the others, if any, in the clock's next block
	}
	opts := make([]int32, len(due))
	for i, tm := range due {
		opts[i] = tm.seq
	}
	s := r.choice(c, opts)
	for _, tm := range due {
		if tm.seq == s {
			r.fireEager(c, tm)
		}
	}
}

// fireEager fires tm from the clock's block, recording its channel as
// written.
func (r *run) fireEager(c *thread, tm *vtimer) {
	switch {
	case tm.m != nil:
		r.dataAccess(tm.m.addr, 1, true)
	case tm.ctx != nil && tm.ctx.m != nil:
		r.dataAccess(tm.ctx.m.addr, 1, true)
	}
	r.fire(c, tm)
	r.pollNativeAfterFire()
}

// blockStarted notes that t starts a block: a switch when the previous
// block was another goroutine's.
func (r *run) blockStarted(t *thread) {
	if r.lastBlock != t {
		r.switches++
		r.lastBlock = t
	}
	t.ranAt = r.switches
}
