package engine

import (
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"time"
	"unsafe"
)

// The time package on the virtual clock (package scheduler/internal/vclock,
// clock.go). The rewriter sends
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
	r, t := enter()
	if r == nil {
		return time.Now()
	}
	t.unfenced = true // reading the clock is no fence (package storebuf)
	r.event(t)
	t.unfenced = false
	r.clock.Access(false)
	return r.clock.Now()
}

// TimeSince replaces time.Since.
func TimeSince(t time.Time) time.Duration { return TimeNow().Sub(t) }

// TimeUntil replaces time.Until.
func TimeUntil(t time.Time) time.Duration { return t.Sub(TimeNow()) }

// TimeSleep replaces time.Sleep: the goroutine waits for its deadline, which
// only a tick reaches. Sleep(0) returns at once, as Go's does.
func TimeSleep(d time.Duration) {
	r, t := enter()
	if r == nil {
		time.Sleep(d)
		return
	}
	r.event(t)
	if d <= 0 {
		return
	}
	tm := &vtimer{Action: timerAction{kind: tkSleep, t: t}}
	r.clock.Start(t.idx, tm, d)
	r.parkHere(t, "time.Sleep", -1)
}

// newChanTimer makes a timer whose C is a modelled channel. The channel is
// unbuffered, as Go 1.23's timer channels look (len and cap are 0): the
// scheduler hands the value to a receiver (see vclock's Take), so Stop and
// Reset never leave a stale value behind. anon: time.After's or time.Tick's,
// which nobody can stop or reset.
func newChanTimer(r *run, t *thread, d, period time.Duration, what string, anon bool) *vtimer {
	ch := MakeChan[time.Time](0)
	m := r.model(chanPtr(ch))
	tm := &vtimer{Action: timerAction{kind: tkChan, anon: anon, t: t, ch: ch, m: m}, Period: period}
	m.what = " (" + what + ", made at " + callerPos(3) + ")"
	m.timer = tm
	r.clock.Start(t.idx, tm, d)
	return tm
}

// TimeNewTimer replaces time.NewTimer.
func TimeNewTimer(d time.Duration) *time.Timer {
	r, t := enter()
	if r == nil {
		return time.NewTimer(d)
	}
	tm := newChanTimer(r, t, d, 0, "time.Timer.C", false)
	timer := &time.Timer{C: tm.Action.ch}
	r.clock.AddTimer(timer, tm)
	return timer
}

// TimeAfter replaces time.After.
func TimeAfter(d time.Duration) <-chan time.Time {
	r, t := enter()
	if r == nil {
		return time.After(d)
	}
	return newChanTimer(r, t, d, 0, "time.After", true).Action.ch
}

// TimeAfterFunc replaces time.AfterFunc: at the deadline f starts on a new
// goroutine, a child of the caller.
func TimeAfterFunc(d time.Duration, f func()) *time.Timer {
	r, t := enter()
	if r == nil {
		return time.AfterFunc(d, f)
	}
	tm := &vtimer{Action: timerAction{kind: tkFunc, t: t, fn: f}}
	r.race.Publish(t.idx, unsafe.Pointer(tm), races.RoleSend)
	r.clock.Start(t.idx, tm, d)
	timer := &time.Timer{}
	r.clock.AddTimer(timer, tm)
	return timer
}

// TimeNewTicker replaces time.NewTicker.
func TimeNewTicker(d time.Duration) *time.Ticker {
	r, t := enter()
	if r == nil {
		return time.NewTicker(d)
	}
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	tm := newChanTimer(r, t, d, d, "time.Ticker.C", false)
	ticker := &time.Ticker{C: tm.Action.ch}
	r.clock.AddTicker(ticker, tm)
	return ticker
}

// TimeTick replaces time.Tick.
func TimeTick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	r, t := enter()
	if r == nil {
		return time.Tick(d)
	}
	return newChanTimer(r, t, d, d, "time.Tick", true).Action.ch
}

// TimerCtl carries the methods of a *time.Timer that touch the clock:
// t.Stop() is rewritten to xb.TimerOf(t).Stop().
type TimerCtl struct{ t *time.Timer }

// TimerOf returns the controls of t.
func TimerOf(t *time.Timer) TimerCtl { return TimerCtl{t} }

// vtimerOf returns the virtual timer behind t in the execution r, or nil
// (a real timer, made outside any execution).
func vtimerOf(r *run, t *time.Timer) *vtimer {
	if r == nil {
		return nil
	}
	return r.clock.TimerOf(t)
}

// timerOp is the common frame of Stop and Reset: an operation on the timer's
// channel (a receiver elsewhere depends on its order) and a block boundary.
// As in Go 1.23 and later, nothing is ever buffered in the channel, so
// neither leaves a stale value, and each reports whether the timer was
// pending: a timer that is due but whose value nobody received still is.
func timerOp(r *run, t *thread, tm *vtimer, key unsafe.Pointer, op func() bool) bool {
	r.event(t)
	if m := tm.Action.m; m != nil {
		key = m.addr
	}
	r.dataAccess(key, 1, true)
	r.clock.Access(true)
	was := op()
	r.yield(t)
	return was
}

// Stop replaces (*time.Timer).Stop.
func (c TimerCtl) Stop() bool {
	r, t := enter()
	tm := vtimerOf(r, c.t)
	if tm == nil {
		return c.t.Stop()
	}
	return timerOp(r, t, tm, unsafe.Pointer(c.t), func() bool { return r.clock.Stop(tm) })
}

// Reset replaces (*time.Timer).Reset.
func (c TimerCtl) Reset(d time.Duration) bool {
	r, t := enter()
	tm := vtimerOf(r, c.t)
	if tm == nil {
		return c.t.Reset(d)
	}
	return timerOp(r, t, tm, unsafe.Pointer(c.t), func() bool {
		was := tm.Pending()
		r.clock.Reset(tm, d)
		return was
	})
}

// TickerCtl carries the methods of a *time.Ticker that touch the clock.
type TickerCtl struct{ t *time.Ticker }

// TickerOf returns the controls of t.
func TickerOf(t *time.Ticker) TickerCtl { return TickerCtl{t} }

func (c TickerCtl) vt() (*run, *thread, *vtimer) {
	r, t := enter()
	if r == nil {
		return nil, nil, nil
	}
	return r, t, r.clock.TickerOf(c.t)
}

// Stop replaces (*time.Ticker).Stop.
func (c TickerCtl) Stop() {
	r, t, tm := c.vt()
	if tm == nil {
		c.t.Stop()
		return
	}
	timerOp(r, t, tm, nil, func() bool { return r.clock.Stop(tm) })
}

// Reset replaces (*time.Ticker).Reset.
func (c TickerCtl) Reset(d time.Duration) {
	r, t, tm := c.vt()
	if tm == nil {
		c.t.Reset(d)
		return
	}
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	timerOp(r, t, tm, nil, func() bool {
		tm.Period = d
		r.clock.Reset(tm, d)
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
