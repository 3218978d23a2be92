// Package vclock is the virtual clock of one execution of the engine
// (package scheduler/internal/engine): virtual time, the pending timers
// and tickers, ticks, and timers firing eagerly through the clock's
// pseudo-thread under the fairness bound.
//
// # Virtual time
//
// Under a controlled scheduler real time is meaningless (one goroutine runs
// at a time, at the explorer's pace) and slow, so rewritten code reads a
// virtual clock, as under testing/synctest: it starts at a fixed epoch in
// every execution and moves only when no controlled goroutine can run, to
// the earliest pending deadline (the strategy's "tick", Advance). A tick
// fires the timers due at the new instant; the order in which they fire,
// and whether goroutines they woke run before the rest fire, are choice
// points of the path, like Cond.Signal's (see fireDue).
//
// A tick's choices are recorded after the choices of the block that ended
// just before it (the last block before nobody could run). A replayed prefix
// ticks where the original execution did (CatchUp): after a block, if the
// goroutine that runs next cannot run (it sleeps or waits on a timer
// channel, or does not exist yet, an AfterFunc's), which is exactly when the
// explorer ticked, since time advances only when the enabled set is empty
// and every goroutine a tick enables was waiting. (A wait for a channel
// xbtest does not control, the last resort of a tick, is caught up with the
// same way.)
//
// # Eager timers
//
// Go does not promise synctest's rule: a short timer may fire while
// goroutines could run. With a horizon > 0 (settings.Timers) a timer due
// within it may also fire at any scheduling point: the clock is then a
// pseudo-thread (Sync makes it runnable or waiting; each of its blocks is
// EagerBlock), ordered by the explorer against the goroutines' blocks as
// any thread is. It gives way once a goroutine that can run has waited
// settings' FairBlocks blocks (BlockStarted counts them), so that a loop on
// a fast ticker cannot starve the others, and to a goroutine that could run
// more than the horizon before the timer's deadline. eager.go says why
// this explores every order that matters.
//
// # The host
//
// The clock knows times, deadlines and the order of timers; what a timer
// does at its deadline (wake a sleeper, send on a channel, start a
// goroutine, cancel a context) and everything about goroutines is its
// host's, the execution's (Host). A Timer carries the host's part as its
// Action, a type of the host's choosing. Goroutines cross the interface as
// the engine's creation indices (-1: none).
package vclock

import (
	"slices"
	"time"
	"unsafe"
)

// Epoch is virtual time zero, the same for every execution, so that
// time.Now reads the same on every replay of a schedule (and in every
// process): midnight UTC, 2000-01-01, as under testing/synctest.
//
// Like a time.Now, and like synctest's clock, it carries a monotonic
// reading, 2000-01-01 in nanoseconds. Real readings count from the
// process's start, so Epoch and every virtual time after it are later than
// any time the program read before its execution (a package variable set
// by time.Now at init): time.Since of such a time is positive, as Go's
// monotonic clock promises. Without the reading, Sub would compare wall
// clocks, 2000 against today, and time would run backwards.
var Epoch = withMonotonic(time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC))

// withMonotonic is t with the monotonic reading t.UnixNano(). No exported
// function of package time makes a Time whose monotonic reading is not the
// current one, so it sets the fields as time.Now does (time.Time is wall,
// ext, loc; with hasMonotonic, wall holds the seconds since 1885 and the
// nanoseconds, ext the reading). init checks the result, so a change of
// the layout fails at once rather than quietly.
func withMonotonic(t time.Time) time.Time {
	const hasMonotonic, nsecShift = 1 << 63, 30
	rep := (*struct {
		wall uint64
		ext  int64
		loc  *time.Location
	})(unsafe.Pointer(&t))
	sec := t.Unix() - time.Date(1885, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	rep.wall = hasMonotonic | uint64(sec)<<nsecShift | uint64(t.Nanosecond())
	rep.ext = t.UnixNano()
	return t
}

func init() {
	wall := time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)
	if !Epoch.Equal(wall) || time.Until(Epoch) < 20*365*24*time.Hour || Epoch.Add(time.Hour).Sub(Epoch) != time.Hour {
		panic("vclock: the virtual epoch has no monotonic reading: has time.Time's layout changed?")
	}
}

// Timer is a deadline of the virtual clock. A is what the host does at the
// deadline.
type Timer[A any] struct {
	Action  A
	Period  time.Duration // a ticker's period; 0 for a timer
	when    time.Duration // since Epoch
	seq     int32         // creation order: the default order of equal deadlines
	pending bool
}

// Pending reports whether tm is started and has not fired or been stopped.
func (tm *Timer[A]) Pending() bool { return tm.pending }

// Host is what the clock needs of the execution: what timers do, and the
// goroutines and the exploration around them. Goroutines are creation
// indices (-1: none).
type Host[A any] interface {
	// What a timer does. Idle: a channel timer nobody waits on (see
	// asleep). FiresAtOnce: firing tm can be observed only by the
	// goroutines it wakes (see fireDue). Fire performs tm's action, as a
	// tick run by goroutine g (eager: as a block of the clock's
	// pseudo-thread g, which writes what tm writes). Wakes: tm would wake
	// goroutine g.
	Idle(tm *Timer[A]) bool
	FiresAtOnce(tm *Timer[A]) bool
	Fire(g int32, tm *Timer[A], eager bool)
	Wakes(tm *Timer[A], g int32) bool

	// TestReturned: the test goroutine has returned (tickers fire no
	// more, see Advance).
	TestReturned() bool
	// AwaitNative waits for real for a goroutine blocked on a channel
	// xbtest does not control, the last resort of a tick, and reports
	// whether one proceeded (false at once if none is blocked so).
	AwaitNative() bool
	// WakeWaiters wakes the goroutines parked in synctest.Wait, when no
	// goroutine can run and before time moves (see Advance), and reports
	// whether it woke any.
	WakeWaiters() bool
	// Ticked is told of a tick to when.
	Ticked(when time.Duration)
	// Choose takes a choice among opts at goroutine g: the order of
	// timers due at a tick (tick), or of those a block of the clock's
	// pseudo-thread fires.
	Choose(g int32, opts []int32, tick bool) int32
	// Access records an access of the clock, for ExitBlock-RW.
	Access(write bool)

	// The clock's pseudo-thread (eager.go). NewClockThread makes it (its
	// body runs EagerBlock); SetRunnable makes it runnable or waiting for
	// a timer; Runnable reports whether goroutine g exists and can run.
	// WokeMidBlock: a timer started by goroutine g's block made the clock
	// runnable, a scheduling point.
	NewClockThread() int32
	SetRunnable(g int32, runnable bool)
	Runnable(g int32) bool
	WokeMidBlock(g int32)
	// Ready reports whether goroutine g, a goroutine and not a
	// pseudo-thread, can run now (for the fairness bound).
	Ready(g int32) bool
}

// Clock is the virtual clock of one execution.
type Clock[A any] struct {
	host       Host[A]
	horizon    time.Duration // settings.Timers.Horizon: how far ahead a timer may fire eagerly
	fairBlocks int           // settings' FairBlocks (eager.go, "Fairness")

	now     time.Duration
	seq     int32
	pending []*Timer[A]
	// noTickers: the test has returned, tickers fire no more (Advance)
	noTickers bool
	timers    map[*time.Timer]*Timer[A]
	tickers   map[*time.Ticker]*Timer[A]

	// testing/synctest (SetBubbles): bubbles live, goroutines parked in
	// synctest.Wait, and whether a bubble's root goroutine has exited
	// while other members remain (time then stops).
	bubbles, waiters int
	stopped          bool

	ticking bool  // a tick is firing timers: wake-ups carry no happens-before edge
	woke    int   // goroutines the tick under way has woken or started
	thread  int32 // the clock's pseudo-thread when timers fire eagerly, or -1

	// The fairness bound and the horizon (eager.go): goroutine switches
	// between blocks so far, the goroutine of the block under way, and
	// when each goroutine last started a block or was woken.
	switches int
	last     int32
	ranAt    []ranAt
	ranBuf   [8]ranAt // ranAt's first array: no allocation for a small test
}

// NewExecution prepares c for a new execution of host: timers may fire eagerly
// within horizon of the virtual now, while no goroutine has waited
// fairBlocks blocks to run.
func (c *Clock[A]) NewExecution(host Host[A], horizon time.Duration, fairBlocks int) {
	c.host, c.horizon, c.fairBlocks = host, horizon, fairBlocks
	c.now, c.seq, c.noTickers = 0, 0, false
	clear(c.pending)
	c.pending = c.pending[:0]
	if c.timers == nil {
		c.timers = map[*time.Timer]*Timer[A]{}
		c.tickers = map[*time.Ticker]*Timer[A]{}
	}
	clear(c.timers)
	clear(c.tickers)
	c.ticking, c.woke, c.thread = false, 0, -1
	c.bubbles, c.waiters, c.stopped = 0, 0, false
	c.switches, c.last = 0, -1
	if c.ranAt == nil {
		c.ranAt = c.ranBuf[:0]
	}
	c.ranAt = c.ranAt[:0]
}

// Now is the virtual time.
func (c *Clock[A]) Now() time.Time { return Epoch.Add(c.now) }

// AddTimer records tm as the virtual timer behind t; TimerOf finds it.
func (c *Clock[A]) AddTimer(t *time.Timer, tm *Timer[A]) { c.timers[t] = tm }

// TimerOf returns the virtual timer behind t, or nil.
func (c *Clock[A]) TimerOf(t *time.Timer) *Timer[A] { return c.timers[t] }

// AddTicker records tm as the virtual ticker behind t; TickerOf finds it.
func (c *Clock[A]) AddTicker(t *time.Ticker, tm *Timer[A]) { c.tickers[t] = tm }

// TickerOf returns the virtual ticker behind t, or nil.
func (c *Clock[A]) TickerOf(t *time.Ticker) *Timer[A] { return c.tickers[t] }

// Reset makes tm pending, due d from now (at once if d <= 0), as
// (*time.Timer).Reset does: no access of the clock is recorded and the
// clock's pseudo-thread is not woken (the caller's block ends at once).
func (c *Clock[A]) Reset(tm *Timer[A], d time.Duration) {
	tm.when = c.now + max(d, 0)
	if !tm.pending {
		tm.pending = true
		c.seq++
		tm.seq = c.seq
		c.pending = append(c.pending, tm)
	}
}

// Stop makes tm no longer pending and reports whether it was.
func (c *Clock[A]) Stop(tm *Timer[A]) bool {
	if !tm.pending {
		return false
	}
	tm.pending = false
	if i := slices.Index(c.pending, tm); i >= 0 {
		c.pending = slices.Delete(c.pending, i, i+1)
	}
	return true
}

// asleep reports whether tm does not fire now: an idle channel timer, or a
// ticker once the test has returned (see Advance). As in Go 1.23 and
// later, a timer channel is unbuffered: the value is sent when a receiver
// comes (Recv and Select take it at once from a timer that is due, see
// Take), so a channel timer with no goroutine parked on its channel has
// nothing to do at its deadline and does not move the clock. A time.After
// that lost its select, a ticker nobody reads, never tick.
func (c *Clock[A]) asleep(tm *Timer[A]) bool {
	return c.host.Idle(tm) || c.noTickers && tm.Period > 0
}

// next returns the earliest deadline of a timer that can fire.
func (c *Clock[A]) next() (time.Duration, bool) {
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

// CanFire reports whether a pending timer can fire (a tick would move the
// clock).
func (c *Clock[A]) CanFire() bool {
	_, ok := c.next()
	return ok
}

// due returns the timers due now, in creation order.
func (c *Clock[A]) due() []*Timer[A] {
	var out []*Timer[A]
	for _, tm := range c.pending {
		if tm.when <= c.now && !c.asleep(tm) {
			out = append(out, tm)
		}
	}
	slices.SortFunc(out, func(a, b *Timer[A]) int { return int(a.seq - b.seq) })
	return out
}

// Due reports whether tm is a pending timer whose deadline has come.
func (c *Clock[A]) Due(tm *Timer[A]) bool { return tm.pending && tm.when <= c.now }

// Take is the send of a due channel timer: the time of its deadline; a
// ticker moves to its next deadline after now (ticks missed while nobody
// received are dropped, as Go's are), a timer stops.
func (c *Clock[A]) Take(tm *Timer[A]) time.Time {
	v := Epoch.Add(tm.when)
	if tm.Period > 0 {
		tm.when += ((c.now-tm.when)/tm.Period + 1) * tm.Period
	} else {
		c.Stop(tm)
	}
	return v
}

// Advance is a tick, run by goroutine g (the one that ended the last
// block): it moves the clock to the next deadline and fires the timers due
// there, instant after instant, until enough() holds or no timer can fire.
// With no timer left, goroutines waiting on channels xbtest does not
// control are waited for for real (Host.AwaitNative). It reports whether
// enough() holds.
//
// Once the test goroutine has returned, tickers no longer fire: the test is
// over, as under go test, and a goroutine left looping on a ticker (a
// cache's janitor) would keep the path going forever; it is neither run
// further nor a leak (see Wakes). Other timers still fire, so that a
// goroutine that wakes up late and then blocks forever is a leak.
//
// Under testing/synctest (SetBubbles) a goroutine parked in synctest.Wait
// is woken before time moves: the host's WakeWaiters runs first, and the
// clock advances only if it woke nobody. Once a bubble's root goroutine
// has exited while other members remain, time stops, as in Go.
func (c *Clock[A]) Advance(g int32, enough func() bool) bool {
	c.noTickers = c.host.TestReturned()
	for !enough() {
		if c.waiters > 0 && c.host.WakeWaiters() {
			continue
		}
		if c.stopped {
			return false
		}
		when, ok := c.next()
		if !ok && !c.host.AwaitNative() {
			return false
		}
		c.host.Ticked(when)
		if ok {
			c.now = when
			c.fireDue(g)
			if c.Sync(-1) {
				// A timer due soon after may fire eagerly: the clock is a
				// thread that can run, in a replayed prefix as while
				// exploring (eager.go).
				return true
			}
		}
	}
	return true
}

// CatchUp ticks in a replayed prefix until goroutine n can run (see the
// package doc); g runs the ticks, natives says whether goroutines wait on
// channels xbtest does not control.
func (c *Clock[A]) CatchUp(g, n int32, natives bool) {
	if n < 0 || len(c.pending) == 0 && !natives && c.waiters == 0 {
		return
	}
	c.Advance(g, func() bool { return c.host.Runnable(n) })
}

// SetBubbles tells the clock about testing/synctest's bubbles: how many
// are live, how many goroutines are parked in synctest.Wait (Advance wakes
// them before time moves, Host.WakeWaiters), and whether time has stopped
// (a bubble's root goroutine exited while others remain). While a bubble is
// live no timer fires eagerly (eager.go): synctest's rule is Go's there.
func (c *Clock[A]) SetBubbles(bubbles, waiters int, stopped bool) {
	c.bubbles, c.waiters, c.stopped = bubbles, waiters, stopped
}

// Wakes reports whether a pending timer would wake goroutine g. Such a
// goroutine, left behind when the test returns (waiting for a ticker,
// which fires no more), is not blocked forever.
func (c *Clock[A]) Wakes(g int32) bool {
	for _, tm := range c.pending {
		if c.host.Wakes(tm, g) {
			return true
		}
	}
	return false
}

// fireDue fires the timers due now. Some fire at once, in creation order
// (Host.FiresAtOnce): a sleep's, and a time.After's or time.Tick's whose
// channel only plain receives wait on. Only the goroutines they wake can
// observe them (nobody can stop them, and a receive on a due timer's
// channel takes its value anyway), so their order with the rest changes
// nothing the explorer does not already order (the woken goroutines'
// blocks). Any other timer can be observed by goroutines other than those
// it wakes (a select over it and another channel, Stop's or Reset's
// result, Err), so its order is a choice: which of them fires next, or,
// once the instant has woken some goroutine, none (-1): the woken
// goroutines run first, as they could in a real program, and the rest fire
// when every goroutine blocks again.
func (c *Clock[A]) fireDue(g int32) {
	c.ticking = true
	c.woke = 0
	defer func() { c.ticking = false }()
	for {
		due := c.due()
		if len(due) == 0 {
			return
		}
		var opts []int32
		for _, tm := range due {
			if c.host.FiresAtOnce(tm) {
				c.host.Fire(g, tm, false)
				opts = nil
				break
			}
			opts = append(opts, tm.seq)
		}
		if opts == nil {
			continue
		}
		if c.woke > 0 {
			opts = append(opts, -1)
		}
		s := opts[0]
		if len(opts) > 1 {
			s = c.host.Choose(g, opts, true)
		}
		if s < 0 {
			return
		}
		for _, tm := range due {
			if tm.seq == s {
				c.host.Fire(g, tm, false)
			}
		}
	}
}

// Ticking reports whether a tick (or a wait for code xbtest does not
// control that stands for one) is under way: what it wakes carries no
// happens-before edge from the running goroutine.
func (c *Clock[A]) Ticking() bool { return c.ticking }

// SetTicking sets whether a tick is under way and returns what was.
func (c *Clock[A]) SetTicking(on bool) bool {
	was := c.ticking
	c.ticking = on
	return was
}

// Woken notes that goroutine g was woken (it ran, for the fairness bound)
// and reports whether by a tick.
func (c *Clock[A]) Woken(g int32) bool {
	c.ranAt[g] = ranAt{c.switches, c.now}
	if c.ticking {
		c.woke++
	}
	return c.ticking
}

// SpawnedByClock notes that a timer started a goroutine (an AfterFunc's).
func (c *Clock[A]) SpawnedByClock() { c.woke++ }
