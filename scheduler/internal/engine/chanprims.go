package engine

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// The primitives of channels, select, timers and contexts (package
// scheduler/internal/chanobj), besides those every drop-in object has
// (primitives.go): the execution as a whole (Exec), what a tick does
// when no goroutine's operation is under way; the virtual clock and its
// timers; waits on channels xbtest does not control (native.go); and
// Channels, through which the engine itself uses channels and contexts.
// Their list is the package doc's ("Channels, timers and contexts").

// Exec is an execution, as channels and contexts see it: what they do
// outside any goroutine's operation (a timer's action at a tick), and the
// identity of the execution a context belongs to (comparable with ==).
type Exec struct{ r *run }

// Exec is the execution t belongs to.
func (t *G) Exec() Exec { return Exec{t.r} }

// Running is the goroutine whose block is under way (or the last one, in a
// tick).
func (x Exec) Running() *G { return x.r.cur }

// DataAccess is G.DataAccess, for a timer's action (a tick's).
func (x Exec) DataAccess(addr unsafe.Pointer, size uintptr, write bool) {
	x.r.dataAccess(addr, size, write)
}

// Races is G.Races, for a timer's action.
func (x Exec) Races() *races.Races { return &x.r.race }

// Wake is G.Wake without a lock to take again, for a timer's action and
// for whoever serves a parked partner of a channel.
func (x Exec) Wake(w *G) { x.r.wakeUp(w, -1) }

// Objects is G.Objects.
func (x Exec) Objects(s Slot, mk func() ObjectTables) ObjectTables { return x.r.objects(s, mk) }

// SpawnFor starts fn on a new goroutine, a child of parent: an AfterFunc's
// function. byClock: started by a tick (t may be nil; the child is simply
// enabled); otherwise by t's block, like a go statement. A non-nil key
// carries the happens-before edge from the AfterFunc call (Publish it
// there with races.RoleSend).
func (x Exec) SpawnFor(t, parent *G, fn func(), byClock bool, key unsafe.Pointer) {
	r := x.r
	c := r.newThread(parent, fn)
	if byClock {
		r.clock.SpawnedByClock()
		r.race.Start(-1, c.idx)
		if key != nil {
			r.race.Observe(c.idx, key, races.RoleSend)
		}
		if r.exploring {
			r.strat.Woken(c.idx, -1) // enabled, as a goroutine a timer wakes
		}
		return
	}
	r.race.Start(t.idx, c.idx)
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
}

// Watch runs fire, as a tick does, when a scheduling point or a tick finds
// done (the Done channel of a context xbtest did not make) closed, unless
// gone() by then (native.go).
func (x Exec) Watch(done <-chan struct{}, fire func(), gone func() bool) { x.r.watch(done, fire, gone) }

// ParkNative parks t until one of the operations of cases (a receive, a
// send, the cases of a select on channels xbtest does not control; no
// default case) proceeds: the engine tries them at every scheduling point
// and tick, performs the one that can, and calls got with its index and
// what it received (native.go). served, if not nil, is set once
// the wait is over, and ends it when set by someone else (a modelled case
// of the same select served meanwhile). on describes the wait in reports.
// A send on a closed channel panics when t resumes.
func (t *G) ParkNative(cases []reflect.SelectCase, got func(i int, v reflect.Value, ok bool), served *bool, on string) {
	w := newNativeWait(t, cases, got)
	w.served = served
	t.r.parkNative(t, w, on)
}

// Allocated registers an object the operation made (a channel) as memory
// the test body allocated, named by t and its allocation count.
func (t *G) Allocated(addr unsafe.Pointer, size uintptr) { t.r.alloc(t, addr, size, nil, true) }

// InternalError reports an error of xbtest itself and ends the execution.
func (t *G) InternalError(msg string) { t.r.internalError(t, msg) }

// UnfencedEvent is Event for an operation that is no fence of the store
// buffers (reading the clock).
func (t *G) UnfencedEvent() {
	t.unfenced = true
	t.r.event(t)
	t.unfenced = false
}

// RuntimeError is a panic value like the runtime's own (it implements
// runtime.Error): a panic the scheduler raises for the program (send on a
// closed channel), which is no fault of xbtest's.
type RuntimeError string

func (e RuntimeError) Error() string { return string(e) }

// RuntimeError marks e as a runtime.Error.
func (e RuntimeError) RuntimeError() {}

// NotControlled describes a channel the scheduler did not make, in reports
// (native.go).
const NotControlled = " (a channel made by code xbtest does not control)"

// Timers. The virtual clock (package scheduler/internal/vclock) keeps
// virtual time and the pending timers; what a timer does at its deadline is
// the engine's for a sleep and time.AfterFunc (SleepTimer, FuncTimer), and
// its target's for a timer's channel or a context's deadline
// (TargetTimer).

// Timer is a deadline of the virtual clock.
type Timer = vtimer

// TimerTarget is what a timer acts on at its deadline when it is neither a
// sleep nor an AfterFunc: a timer's channel, a context. The clock asks it
// (clockHost, clock.go):
//
//   - Fire(x, by, tm, eager): perform the action, as a tick run by
//     goroutine by (nil if none), or eagerly, as a block of the clock's
//     pseudo-thread, which writes what tm writes (record it with
//     DataAccess first).
//   - Idle(): a channel timer nobody waits on (it need not fire).
//   - FiresAtOnce(): firing it can be observed only by the goroutines it
//     wakes (vclock's fireDue).
//   - Wakes(g): firing it would wake g.
type TimerTarget interface {
	Fire(x Exec, by *G, tm *Timer, eager bool)
	Idle() bool
	FiresAtOnce() bool
	Wakes(g *G) bool
}

// SleepTimer is the timer of t's time.Sleep: it wakes t.
func SleepTimer(t *G) *Timer { return &vtimer{Action: timerAction{kind: tkSleep, t: t}} }

// FuncTimer is the timer of t's time.AfterFunc(d, fn): it starts fn on a
// child of t. Publish the happens-before edge of the call on the timer's
// address (races.RoleSend).
func FuncTimer(t *G, fn func()) *Timer {
	return &vtimer{Action: timerAction{kind: tkFunc, t: t, fn: fn}}
}

// TargetTimer is a timer that acts on target; period is a ticker's (0 for
// a timer).
func TargetTimer(target TimerTarget, period time.Duration) *Timer {
	return &vtimer{Action: timerAction{kind: tkTarget, target: target}, Period: period}
}

// TargetOf is what tm acts on, nil for a sleep or an AfterFunc.
func TargetOf(tm *Timer) TimerTarget { return tm.Action.target }

// StartTimer starts tm, due d from now (t's operation starts it).
func (t *G) StartTimer(tm *Timer, d time.Duration) { t.r.clock.Start(t.idx, tm, d) }

// Now reads the virtual clock.
func (x Exec) Now() time.Time { return x.r.clock.Now() }

// ClockAccess records a read or write of the clock, for ExitBlock-RW.
func (x Exec) ClockAccess(write bool) { x.r.clock.Access(write) }

// StopTimer stops tm and reports whether it was pending.
func (x Exec) StopTimer(tm *Timer) bool { return x.r.clock.Stop(tm) }

// ResetTimer starts tm again, due d from now.
func (x Exec) ResetTimer(tm *Timer, d time.Duration) { x.r.clock.Reset(tm, d) }

// TimerDue reports whether tm is pending and its deadline has come.
func (x Exec) TimerDue(tm *Timer) bool { return x.r.clock.Due(tm) }

// TakeTimer is the send of a due channel timer: the time of its deadline
// (vclock's Take: a ticker moves to its next deadline, a timer stops).
func (x Exec) TakeTimer(tm *Timer) time.Time { return x.r.clock.Take(tm) }

// AddTimer makes tm the virtual timer behind timer (TimerOf finds it).
func (x Exec) AddTimer(timer *time.Timer, tm *Timer) { x.r.clock.AddTimer(timer, tm) }

// TimerOf is the virtual timer behind timer, or nil (a real timer).
func (x Exec) TimerOf(timer *time.Timer) *Timer { return x.r.clock.TimerOf(timer) }

// AddTicker makes tm the virtual timer behind ticker.
func (x Exec) AddTicker(ticker *time.Ticker, tm *Timer) { x.r.clock.AddTicker(ticker, tm) }

// TickerOf is the virtual timer behind ticker, or nil (a real ticker).
func (x Exec) TickerOf(ticker *time.Ticker) *Timer { return x.r.clock.TickerOf(ticker) }
