package chanobj

import (
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// The time package on the virtual clock (package scheduler/internal/vclock,
// the engine's clock.go). The rewriter sends
// time.Now, Since, Until, Sleep, After, Tick, NewTimer, NewTicker and
// AfterFunc here, and the Stop and Reset methods of *time.Timer and
// *time.Ticker through TimerOf and TickerOf. The values stay *time.Timer and
// *time.Ticker, so user code compiles unchanged: their C is a channel the
// scheduler made (so its operations are modelled) and drives. Outside an
// execution every hook is the real function.

// TimeNow replaces time.Now. Reading the clock is no scheduling point, but
// it is a step: a loop that polls the clock without blocking, which never
// sees time pass, is stopped by the step bound.
func TimeNow() time.Time {
	t := engine.Enter()
	if t == nil {
		return time.Now()
	}
	t.UnfencedEvent() // reading the clock is no fence (package storebuf)
	x := t.Exec()
	x.ClockAccess(false)
	return x.Now()
}

// TimeSince replaces time.Since.
func TimeSince(t time.Time) time.Duration { return TimeNow().Sub(t) }

// TimeUntil replaces time.Until.
func TimeUntil(t time.Time) time.Duration { return t.Sub(TimeNow()) }

// TimeSleep replaces time.Sleep: the goroutine waits for its deadline, which
// only a tick reaches. Sleep(0) returns at once, as Go's does.
func TimeSleep(d time.Duration) {
	t := engine.Enter()
	if t == nil {
		time.Sleep(d)
		return
	}
	t.Event()
	if d <= 0 {
		return
	}
	t.StartTimer(engine.SleepTimer(t), d)
	t.Park("time.Sleep", -1)
}

// chanTimer is the channel of a Timer, a Ticker, time.After or time.Tick:
// what its timer acts on at its deadline (an engine.TimerTarget).
type chanTimer struct {
	ch   chan time.Time
	m    *chanState
	anon bool // time.After's or time.Tick's: nobody can Stop or Reset it
}

// newChanTimer makes a timer whose C is a modelled channel. The channel is
// unbuffered, as Go 1.23's timer channels look (len and cap are 0): the
// scheduler hands the value to a receiver (see vclock's Take), so Stop and
// Reset never leave a stale value behind. anon: time.After's or time.Tick's,
// which nobody can stop or reset.
func newChanTimer(t *engine.G, d, period time.Duration, what string, anon bool) (*engine.Timer, *chanTimer) {
	ch := MakeChan[time.Time](0)
	m := model(t, chanPtr(ch))
	c := &chanTimer{ch: ch, m: m, anon: anon}
	tm := engine.TargetTimer(c, period)
	m.what = " (" + what + ", made at " + srcpos.Caller(4) + ")"
	m.timer = tm
	t.StartTimer(tm, d)
	return tm, c
}

// Fire implements engine.TimerTarget: the timer's value goes to a parked
// receiver, if there is one. Fired eagerly, by the clock's own block, it
// writes the channel.
func (c *chanTimer) Fire(x engine.Exec, _ *engine.G, tm *engine.Timer, eager bool) {
	if eager {
		x.DataAccess(c.m.addr, 1, true)
	}
	if sg := popLive(&c.m.recvq); sg != nil {
		deliver(x, sg, x.TakeTimer(tm), true)
	}
}

// Idle implements engine.TimerTarget: nobody waits on the channel.
func (c *chanTimer) Idle() bool { return !hasLive(c.m.recvq) }

// FiresAtOnce implements engine.TimerTarget: a time.After's or time.Tick's
// channel that only plain receives wait on (see vclock's fireDue).
func (c *chanTimer) FiresAtOnce() bool {
	if !c.anon {
		return false
	}
	for _, sg := range c.m.recvq {
		if sg.sel != nil && sg.live() {
			return false
		}
	}
	return true
}

// Wakes implements engine.TimerTarget: g waits on the channel.
func (c *chanTimer) Wakes(g *engine.G) bool { return c.m.waits(g) }

// TimeNewTimer replaces time.NewTimer.
func TimeNewTimer(d time.Duration) *time.Timer {
	t := engine.Enter()
	if t == nil {
		return time.NewTimer(d)
	}
	tm, c := newChanTimer(t, d, 0, "time.Timer.C", false)
	timer := &time.Timer{C: c.ch}
	t.Exec().AddTimer(timer, tm)
	return timer
}

// TimeAfter replaces time.After.
func TimeAfter(d time.Duration) <-chan time.Time {
	t := engine.Enter()
	if t == nil {
		return time.After(d)
	}
	_, c := newChanTimer(t, d, 0, "time.After", true)
	return c.ch
}

// TimeAfterFunc replaces time.AfterFunc: at the deadline f starts on a new
// goroutine, a child of the caller.
func TimeAfterFunc(d time.Duration, f func()) *time.Timer {
	t := engine.Enter()
	if t == nil {
		return time.AfterFunc(d, f)
	}
	tm := engine.FuncTimer(t, f)
	t.Races().Publish(t.Index(), unsafe.Pointer(tm), races.RoleSend)
	t.StartTimer(tm, d)
	timer := &time.Timer{}
	t.Exec().AddTimer(timer, tm)
	return timer
}

// TimeNewTicker replaces time.NewTicker.
func TimeNewTicker(d time.Duration) *time.Ticker {
	t := engine.Enter()
	if t == nil {
		return time.NewTicker(d)
	}
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	tm, c := newChanTimer(t, d, d, "time.Ticker.C", false)
	ticker := &time.Ticker{C: c.ch}
	t.Exec().AddTicker(ticker, tm)
	return ticker
}

// TimeTick replaces time.Tick.
func TimeTick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	t := engine.Enter()
	if t == nil {
		return time.Tick(d)
	}
	_, c := newChanTimer(t, d, d, "time.Tick", true)
	return c.ch
}

// TimerCtl carries the methods of a *time.Timer that touch the clock:
// t.Stop() is rewritten to xb.TimerOf(t).Stop().
type TimerCtl struct{ t *time.Timer }

// TimerOf returns the controls of t.
func TimerOf(t *time.Timer) TimerCtl { return TimerCtl{t} }

// vtimerOf returns the virtual timer behind timer in the execution of g,
// or nil (a real timer, made outside any execution).
func vtimerOf(g *engine.G, timer *time.Timer) *engine.Timer {
	if g == nil {
		return nil
	}
	return g.Exec().TimerOf(timer)
}

// timerOp is the common frame of Stop and Reset: an operation on the timer's
// channel (a receiver elsewhere depends on its order) and a block boundary.
// As in Go 1.23 and later, nothing is ever buffered in the channel, so
// neither leaves a stale value, and each reports whether the timer was
// pending: a timer that is due but whose value nobody received still is.
func timerOp(t *engine.G, tm *engine.Timer, key unsafe.Pointer, op func() bool) bool {
	t.Event()
	if c, ok := engine.TargetOf(tm).(*chanTimer); ok {
		key = c.m.addr
	}
	t.DataAccess(key, 1, true)
	t.Exec().ClockAccess(true)
	was := op()
	t.EndBlock()
	return was
}

// Stop replaces (*time.Timer).Stop.
func (c TimerCtl) Stop() bool {
	t := engine.Enter()
	tm := vtimerOf(t, c.t)
	if tm == nil {
		return c.t.Stop()
	}
	return timerOp(t, tm, unsafe.Pointer(c.t), func() bool { return t.Exec().StopTimer(tm) })
}

// Reset replaces (*time.Timer).Reset.
func (c TimerCtl) Reset(d time.Duration) bool {
	t := engine.Enter()
	tm := vtimerOf(t, c.t)
	if tm == nil {
		return c.t.Reset(d)
	}
	return timerOp(t, tm, unsafe.Pointer(c.t), func() bool {
		was := tm.Pending()
		t.Exec().ResetTimer(tm, d)
		return was
	})
}

// TickerCtl carries the methods of a *time.Ticker that touch the clock.
type TickerCtl struct{ t *time.Ticker }

// TickerOf returns the controls of t.
func TickerOf(t *time.Ticker) TickerCtl { return TickerCtl{t} }

func (c TickerCtl) vt() (*engine.G, *engine.Timer) {
	t := engine.Enter()
	if t == nil {
		return nil, nil
	}
	return t, t.Exec().TickerOf(c.t)
}

// Stop replaces (*time.Ticker).Stop.
func (c TickerCtl) Stop() {
	t, tm := c.vt()
	if tm == nil {
		c.t.Stop()
		return
	}
	timerOp(t, tm, nil, func() bool { return t.Exec().StopTimer(tm) })
}

// Reset replaces (*time.Ticker).Reset.
func (c TickerCtl) Reset(d time.Duration) {
	t, tm := c.vt()
	if tm == nil {
		c.t.Reset(d)
		return
	}
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	timerOp(t, tm, nil, func() bool {
		tm.Period = d
		t.Exec().ResetTimer(tm, d)
		return true
	})
}

// TimerStop replaces the method expression (*time.Timer).Stop.
func TimerStop(t *time.Timer) bool { return TimerOf(t).Stop() }

// TimerReset replaces the method expression (*time.Timer).Reset.
func TimerReset(t *time.Timer, d time.Duration) bool { return TimerOf(t).Reset(d) }

// TickerStop replaces the method expression (*time.Ticker).Stop.
func TickerStop(t *time.Ticker) { TickerOf(t).Stop() }

// TickerReset replaces the method expression (*time.Ticker).Reset.
func TickerReset(t *time.Ticker, d time.Duration) { TickerOf(t).Reset(d) }
