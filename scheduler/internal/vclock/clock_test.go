package vclock

import (
	"slices"
	"testing"
	"time"
)

// action is a fake host's timer: a sleep (fires at once) unless observed;
// idle: a channel timer nobody waits on.
type action struct {
	name     string
	observed bool
	idle     bool
}

// fakeHost records what fires and answers choices with the last option.
type fakeHost struct {
	c        *Clock[action]
	fired    []string
	choices  [][]int32
	returned bool
	woke     int // goroutines the observed timers woke
	runnable map[int32]bool
}

func (h *fakeHost) Idle(tm *Timer[action]) bool        { return tm.Action.idle }
func (h *fakeHost) FiresAtOnce(tm *Timer[action]) bool { return !tm.Action.observed }
func (h *fakeHost) Fire(g int32, tm *Timer[action], eager bool) {
	h.fired = append(h.fired, tm.Action.name+"@"+h.c.Now().Sub(Epoch).String())
	if tm.Action.observed {
		h.c.Woken(0) // it wakes goroutine 0
		h.woke++
	}
	if tm.Period > 0 {
		h.c.Take(tm)
	} else {
		h.c.Stop(tm)
	}
}
func (h *fakeHost) Wakes(tm *Timer[action], g int32) bool { return false }
func (h *fakeHost) TestReturned() bool                    { return h.returned }
func (h *fakeHost) AwaitNative() bool                     { return false }
func (h *fakeHost) WakeWaiters() bool                     { return false }
func (h *fakeHost) Ticked(when time.Duration)             {}
func (h *fakeHost) Choose(g int32, opts []int32, tick bool) int32 {
	h.choices = append(h.choices, slices.Clone(opts))
	return opts[len(opts)-1]
}
func (h *fakeHost) Access(write bool)                  {}
func (h *fakeHost) NewClockThread() int32              { return 0 }
func (h *fakeHost) SetRunnable(g int32, runnable bool) {}
func (h *fakeHost) Runnable(g int32) bool              { return h.runnable[g] }
func (h *fakeHost) WokeMidBlock(g int32)               {}
func (h *fakeHost) Ready(g int32) bool                 { return false }

func newClock() (*Clock[action], *fakeHost) {
	c := new(Clock[action])
	h := &fakeHost{c: c, runnable: map[int32]bool{}}
	c.NewExecution(h, 0, 0) // synctest's rule: no eager firing
	return c, h
}

// A tick moves the clock instant after instant, firing what is due in
// deadline order; an idle channel timer does not move it.
func TestAdvanceFiresInDeadlineOrder(t *testing.T) {
	c, h := newClock()
	c.Start(0, &Timer[action]{Action: action{name: "b"}}, 2*time.Second)
	c.Start(0, &Timer[action]{Action: action{name: "a"}}, time.Second)
	c.Start(0, &Timer[action]{Action: action{name: "idle", idle: true}}, time.Millisecond)
	if c.Advance(-1, func() bool { return false }) {
		t.Fatal("Advance reported enough() with nothing left to fire")
	}
	if want := []string{"a@1s", "b@2s"}; !slices.Equal(h.fired, want) {
		t.Errorf("fired %q, want %q", h.fired, want)
	}
	if got := c.Now().Sub(Epoch); got != 2*time.Second {
		t.Errorf("now +%v, want +2s", got)
	}
}

// Observable timers due at one instant are a choice, offered in creation
// order; once one woke a goroutine, -1 (the woken run first, the rest fire
// at the next tick) is an option too.
func TestEqualDeadlinesAreAChoice(t *testing.T) {
	c, h := newClock()
	c.Started(0)
	c.Start(0, &Timer[action]{Action: action{name: "x", observed: true}}, time.Second)
	c.Start(0, &Timer[action]{Action: action{name: "y", observed: true}}, time.Second)
	woken := func() bool { return h.woke > 0 } // the strategy's: a goroutine is enabled
	if !c.Advance(-1, woken) {
		t.Fatal("the tick woke nobody")
	}
	if want := [][]int32{{1, 2}, {1, -1}}; len(h.choices) != 2 || !slices.Equal(h.choices[0], want[0]) || !slices.Equal(h.choices[1], want[1]) {
		t.Errorf("choices %v, want %v", h.choices, want)
	}
	if want := []string{"y@1s"}; !slices.Equal(h.fired, want) {
		t.Errorf("fired %q, want %q", h.fired, want)
	}
	h.woke = 0 // the woken goroutine ran and waits again
	c.Advance(-1, woken)
	if want := []string{"y@1s", "x@1s"}; !slices.Equal(h.fired, want) {
		t.Errorf("after the next tick fired %q, want %q", h.fired, want)
	}
}

// A ticker whose ticks nobody took drops the missed ones: its next
// deadline is the first after now. Once the test has returned, tickers
// fire no more.
func TestTickerDropsMissedTicksAndStopsAfterTheTest(t *testing.T) {
	c, h := newClock()
	tk := &Timer[action]{Action: action{name: "tick", idle: true}, Period: time.Second}
	c.Start(0, tk, time.Second)
	c.Start(0, &Timer[action]{Action: action{name: "sleep"}}, 3500*time.Millisecond)
	c.Advance(-1, func() bool { return false })
	if !c.Due(tk) {
		t.Fatal("the ticker is not due at +3.5s")
	}
	if v := c.Take(tk).Sub(Epoch); v != time.Second {
		t.Errorf("the ticker sent +%v, want its first deadline +1s", v)
	}
	if c.Due(tk) {
		t.Error("the ticker is still due after a tick was taken")
	}
	tk.Action.idle = false // someone waits on it now
	h.returned = true
	if !c.CanFire() {
		t.Error("a ticker waited on cannot fire (the last tick was before the test returned)")
	}
	if c.Advance(-1, func() bool { return false }); slices.Contains(h.fired, "tick@4s") {
		t.Errorf("the ticker fired after the test returned: %q", h.fired)
	}
}
