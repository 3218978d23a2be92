package engine

import (
	"slices"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/location"
	"github.com/xbtest/xbtest/scheduler/internal/vclock"
)

// The engine's side of virtual time. The clock itself (virtual time, the
// pending timers, ticks, eager firing and its fairness bound) is package
// scheduler/internal/vclock's; the engine tells it where goroutines are and
// performs what a timer does at its deadline (timerAction) through
// clockHost: waking a sleeper and starting an AfterFunc's goroutine
// itself, anything else through the timer's TimerTarget (a timer's
// channel, a context's deadline: package chanobj, which has the hooks of
// the time and context packages). The primitives chanobj's timers use are
// chanprims.go's.

// vtimer is a deadline of the virtual clock.
type vtimer = vclock.Timer[timerAction]

type timerKind uint8

const (
	tkSleep  timerKind = iota // wakes a goroutine in time.Sleep
	tkFunc                    // starts a goroutine (time.AfterFunc)
	tkTarget                  // acts on its TimerTarget: sends on a timer's channel, cancels a context
)

// timerAction is what a timer does at its deadline.
type timerAction struct {
	kind   timerKind
	t      *thread // tkSleep: the sleeper; tkFunc: the goroutine that called AfterFunc
	fn     func()
	target TimerTarget
}

// clockCell stands for the virtual clock in read/write sets.
var clockCell byte

func init() {
	location.RegisterGlobal(unsafe.Pointer(&clockCell), 1, "the virtual clock", nil)
}

// clockHost is the execution as the clock's host (vclock.Host): an adapter,
// so that run's own methods stay the execution's.
type clockHost struct{ r *run }

var _ vclock.Host[timerAction] = clockHost{}

// Idle implements vclock.Host: a channel timer nobody waits on.
func (clockHost) Idle(tm *vtimer) bool {
	return tm.Action.kind == tkTarget && tm.Action.target.Idle()
}

// FiresAtOnce implements vclock.Host: a sleep's, and a time.After's or
// time.Tick's whose channel only plain receives wait on (see vclock's
// fireDue).
func (clockHost) FiresAtOnce(tm *vtimer) bool {
	switch a := &tm.Action; a.kind {
	case tkSleep:
		return true
	case tkTarget:
		return a.target.FiresAtOnce()
	}
	return false
}

// Fire implements vclock.Host: it performs what tm does at its deadline,
// then wakes the goroutines waiting on channels xbtest does not control
// that the timer readied (the Done channel of a context derived, by code
// xbtest does not control, from one the timer cancelled). Fired eagerly,
// by the clock's own block, the target records the channel it sends on as
// written.
func (h clockHost) Fire(g int32, tm *vtimer, eager bool) {
	r, t, a := h.r, h.r.threadOf(g), &tm.Action
	switch a.kind {
	case tkSleep:
		r.clock.Stop(tm)
		r.wakeUp(a.t, -1)
	case tkFunc:
		r.clock.Stop(tm)
		Exec{r}.SpawnFor(t, a.t, a.fn, true, unsafe.Pointer(tm))
	case tkTarget:
		a.target.Fire(Exec{r}, t, tm, eager)
	}
	if len(r.natives) > 0 {
		r.pollNative(nil)
	}
}

// Wakes implements vclock.Host: tm would wake goroutine g, which sleeps,
// or waits on a timer's channel or on the Done channel of a context with a
// deadline.
func (h clockHost) Wakes(tm *vtimer, g int32) bool {
	t := h.r.threads[g]
	switch a := &tm.Action; a.kind {
	case tkSleep:
		return a.t == t
	case tkTarget:
		return a.target.Wakes(t)
	}
	return false
}

// TestReturned implements vclock.Host.
func (h clockHost) TestReturned() bool {
	r := h.r
	return len(r.threads) > 0 && r.threads[0].status == stExited
}

// AwaitNative implements vclock.Host (native.go).
func (h clockHost) AwaitNative() bool { return len(h.r.natives) > 0 && h.r.awaitNative() }

// Ticked implements vclock.Host: the strategy is told, the timeline shows
// it.
func (h clockHost) Ticked(when time.Duration) {
	r := h.r
	for _, t := range r.threads {
		t.tickedAt = t.steps
	}
	if r.exploring {
		r.strat.Ticked()
		if g := r.guide; g != nil && r.trace && g.Stepping() {
			g.Step(result.TraceStep{Op: "time advances to +" + when.String()})
		}
	}
}

// Choose implements vclock.Host. A tick's choice among equal deadlines is
// recorded among the choices of the block before the tick; a replayed or
// guided tick takes the recorded one. The clock's own block chooses as a
// select does.
func (h clockHost) Choose(g int32, opts []int32, tick bool) int32 {
	r, t := h.r, h.r.threadOf(g)
	if !tick {
		return r.choice(t, opts)
	}
	if r.exploring {
		if g := r.guide; g != nil {
			if c, recorded, why := g.TickChoice(opts); recorded {
				if why != "" {
					guideHost{r}.diverged(r.cur, why)
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

// Access implements vclock.Host: the clock is clockCell.
func (h clockHost) Access(write bool) {
	if r := h.r; r.exploring {
		r.strat.Access(uintptr(unsafe.Pointer(&clockCell)), 1, write)
	}
}

// NewClockThread implements vclock.Host: the clock's pseudo-thread runs
// the clock's blocks, and waits while no timer can fire eagerly.
func (h clockHost) NewClockThread() int32 {
	r := h.r
	c := r.newThread(nil, nil)
	c.isClock = true
	c.fn = func() {
		for {
			r.event(c)
			if r.clock.EagerBlock(c.idx) {
				r.yield(c)
			} else {
				r.parkHere(c, "a timer", -1)
			}
		}
	}
	return c.idx
}

// SetRunnable implements vclock.Host.
func (h clockHost) SetRunnable(g int32, runnable bool) {
	r, c := h.r, h.r.threads[g]
	if runnable {
		c.status = stRunnable
		c.on, c.onObj = "", -1
		if r.exploring {
			r.strat.Woken(c.idx, -1)
		}
		return
	}
	c.status = stWaiting
	c.on, c.onObj = "a timer", -1
	if r.exploring {
		r.strat.Disable(c.idx)
	}
}

// Runnable implements vclock.Host.
func (h clockHost) Runnable(g int32) bool {
	r := h.r
	return int(g) < len(r.threads) && r.threads[g].status == stRunnable
}

// WokeMidBlock implements vclock.Host: a spawn branch; whatever the hook
// does next (a sleep parks) is a point of its own, since a decision names
// the event its block ends at.
func (h clockHost) WokeMidBlock(g int32) {
	t := h.r.threads[g]
	t.WokeMidBlock()
	h.r.event(t)
}

// Ready implements vclock.Host: a goroutine (not a pseudo-thread) that can
// run.
func (h clockHost) Ready(g int32) bool {
	u := h.r.threads[g]
	return !u.isClock && u.flushOf == nil && u.status == stRunnable && !u.frozen
}
