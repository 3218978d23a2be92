package vclock

import "time"

// Eager timers.
//
// Under testing/synctest's rule (Advance) a timer fires only when no
// goroutine can run. Go promises no such thing: a 1 ns timer or ticker
// usually fires while other goroutines are still runnable, and code that
// is only wrong in that order (a select that takes the timer's case before
// the goroutine that was to close the other channel has run) passes every
// schedule under that rule and hangs under go test. With a horizon > 0
// (settings.Timers) a started timer may also fire at any scheduling
// point, ahead of goroutines that could run, once the timers due before it
// have fired, if its deadline is within that horizon of the virtual now
// and of the moment each goroutine that could run became able to (its last
// block or wake-up): the horizon is the delay a real scheduler may make a
// runnable goroutine wait, not a time budget that each timer renews. A test
// goroutine that sleeps a millisecond at a time, waiting for another that
// could run all along, is not starved for the length of twenty sleeps
// (settings.Eager: whatever the deadline). Time stays virtual: firing early
// moves the clock to the deadline at once.
//
// The clock is then a pseudo-thread, like a store buffer's flusher: it is
// runnable while a timer can fire so, and each of its blocks (EagerBlock)
// moves the clock to the next deadline (if nothing is due yet) and fires,
// at once, every due timer that only wakes the goroutine waiting for it
// (Host.FiresAtOnce), else one due timer, chosen like a select case. The
// explorer orders its blocks as any thread's, so every order of firings
// against the blocks of goroutines is explored. ExitBlock-RW's argument
// holds as for a flush: the clock's block writes the clock (a location
// that starting, stopping or resetting a timer writes and time.Now reads)
// and the channels it sends on, so any block whose order with a firing
// matters intersects it; a block that makes a timer able to fire (a
// receive that waits on a timer's channel, a timer started) wakes the
// clock, as a notify wakes a thread. A timer started in the middle of a
// block may fire right after it: that is a spawn branch
// (Host.WokeMidBlock), as for a go statement.
//
// Fairness. A goroutine that loops on a fast ticker alternates with the
// clock's blocks, and the path in which the two run forever while another
// goroutine could run is infinite; Go's scheduler runs that goroutine
// meanwhile. So the clock fires eagerly only while no goroutine that can
// run has waited fairBlocks blocks or more since it last ran or was woken
// (holdsBack); then it waits for the goroutines to run, as a goroutine that
// polls gives way (internal/exitblock, "Fairness"). For the same reason the
// clock's blocks do not reset the poll counts of goroutines, nor end the
// giving way of one that gave way. What is not explored: more than
// fairBlocks eager firings while a goroutine waits to run.

// Access records an access of the clock for ExitBlock-RW when timers may
// fire eagerly (otherwise no block is ordered against a firing).
func (c *Clock[A]) Access(write bool) {
	if c.horizon > 0 {
		c.host.Access(write)
	}
}

// Start makes tm pending, due d from now, started by goroutine g's block.
// It is a write of the clock (when due within the horizon); a timer that
// can fire eagerly makes the clock runnable in the middle of g's block, a
// scheduling point as a go statement is (Host.WokeMidBlock).
func (c *Clock[A]) Start(g int32, tm *Timer[A], d time.Duration) {
	c.Reset(tm, d)
	if d <= c.horizon {
		// A timer due later than the horizon cannot be the one the
		// clock's next block fires (that one is due within it), so
		// starting it commutes with that block.
		c.Access(true)
	}
	if c.Sync(g) {
		c.host.WokeMidBlock(g)
	}
}

// fireable reports whether a timer may fire ahead of runnable goroutines
// now.
func (c *Clock[A]) fireable() bool {
	c.noTickers = c.host.TestReturned()
	if c.bubbles > 0 {
		return false // testing/synctest's rule holds in a bubble (SetBubbles)
	}
	when, ok := c.next()
	return ok && when-c.now <= c.horizon && !c.holdsBack(when)
}

// ranAt is when a goroutine last started a block or was woken: the switch
// count and the virtual time.
type ranAt struct {
	switches int
	now      time.Duration
}

// holdsBack reports whether a goroutine that can run keeps a timer due at
// when from firing ahead of it: it has waited fairBlocks blocks or more
// since it last ran or was woken (see "Fairness" above), or it could run
// more than the horizon before when. Blocks are counted as switches from
// one goroutine to another (BlockStarted): a schedule file joins
// consecutive blocks of one goroutine, and its replay must reach the same
// verdict here as the execution it was recorded from.
func (c *Clock[A]) holdsBack(when time.Duration) bool {
	fb := c.fairBlocks
	for g, at := range c.ranAt {
		if (fb > 0 && c.switches-at.switches >= fb || when-at.now > c.horizon) && c.host.Ready(int32(g)) {
			return true
		}
	}
	return false
}

// Sync makes the clock's pseudo-thread runnable when a timer can fire
// eagerly and waiting when none can; g is the goroutine at a scheduling
// point (-1: a tick). It reports whether it made the clock runnable.
func (c *Clock[A]) Sync(g int32) bool {
	if c.horizon <= 0 {
		return false
	}
	return c.sync(g)
}

func (c *Clock[A]) sync(g int32) bool {
	if g >= 0 && g == c.thread {
		return false // the clock keeps its own state (EagerBlock)
	}
	fire := c.fireable()
	switch {
	case fire && (c.thread < 0 || !c.host.Runnable(c.thread)):
		if c.thread < 0 {
			c.thread = c.host.NewClockThread()
		}
		c.host.SetRunnable(c.thread, true)
		return true
	case !fire && c.thread >= 0 && c.host.Runnable(c.thread):
		c.host.SetRunnable(c.thread, false)
	}
	return false
}

// EagerBlock is one block of the clock's pseudo-thread g: if no timer is
// due, the clock moves to the next deadline; then every due timer that
// fires at once fires, or else one due timer, a choice point. It reports
// whether the pseudo-thread goes on (another timer can fire eagerly) or
// waits until one can.
func (c *Clock[A]) EagerBlock(g int32) bool {
	c.eagerFire(g)
	return c.fireable()
}

func (c *Clock[A]) eagerFire(g int32) {
	if !c.fireable() {
		return // the block that made it so has not reached its point yet
	}
	if when, _ := c.next(); when > c.now {
		c.now = when
	}
	c.Access(true)
	c.ticking, c.woke = true, 0
	defer func() { c.ticking = false }()
	due := c.due()
	fired := false
	for _, tm := range due {
		if c.host.FiresAtOnce(tm) {
			c.host.Fire(g, tm, true)
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
	s := c.host.Choose(g, opts, false)
	for _, tm := range due {
		if tm.seq == s {
			c.host.Fire(g, tm, true)
		}
	}
}

// Started notes a new goroutine g (the engine's creation order): it has
// not waited yet.
func (c *Clock[A]) Started(g int32) {
	if int(g) < len(c.ranAt) {
		c.ranAt[g] = ranAt{c.switches, c.now}
		return
	}
	c.ranAt = append(c.ranAt, ranAt{c.switches, c.now})
}

// BlockStarted notes that goroutine g starts a block: a switch when the
// previous block was another goroutine's.
func (c *Clock[A]) BlockStarted(g int32) {
	if c.last != g {
		c.switches++
		c.last = g
	}
	c.ranAt[g] = ranAt{c.switches, c.now}
}
