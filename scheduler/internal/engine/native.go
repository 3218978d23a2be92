package engine

import (
	"reflect"
	"time"
)

// Channels made by code xbtest does not control.
//
// A channel the scheduler did not make (the Done channel of a context a
// library derived from one of the test's, a library's own channel) has no
// model: whether an operation on it can proceed is only known by trying.
// A controlled goroutine whose operation on such a channel (a receive, a
// send, a select whose cases include one) cannot proceed does not block for
// real, which would stop every other goroutine and the virtual clock: it
// parks as a native waiter. At every scheduling point, and after every
// timer a tick fires, the waiters are tried again without blocking; one
// whose operation proceeds (it is done on its behalf, as a partner's would)
// is woken by the block under way, or by the tick. That covers channels
// that controlled code readies synchronously: a library's cancel function
// called by the test, a context derived from one of the scheduler's (the
// context package cancels it from the scheduler's context at the same
// point, see package chanobj's vctx.AfterFunc).
//
// When nothing else can happen (no goroutine can run and no timer is
// pending), only code xbtest does not control, on goroutines of its own,
// can make such a channel ready: the scheduler waits for it for real, for at
// most half the watchdog period, and wakes the waiter whose operation
// proceeded. If none did, the waiters are left waiting for good and the
// path ends: a deadlock or leak like any other, whose report names the
// channel as one xbtest does not control (NotControlled).
//
// The operations themselves are package chanobj's (its native.go and
// Select), which park through G.ParkNative; contexts xbtest did not make
// are watched through Exec.Watch.

// nativeWait is a goroutine waiting on channels xbtest does not control, or
// a watch (see watch): something to do when a context xbtest did not make
// is done.
type nativeWait struct {
	t      *thread              // the goroutine, or nil for a watch
	cases  []reflect.SelectCase // its operations, then a default case
	got    func(i int, v reflect.Value, ok bool)
	served *bool       // a select's: set when it is served (by a modelled case meanwhile)
	fire   func()      // a watch's action
	gone   func() bool // a watch's: no longer needed
	stuck  bool        // nothing made it ready while the scheduler waited for real
	panic  any         // a send on a closed channel: the goroutine panics when it resumes
}

// live reports whether w still waits.
func (w *nativeWait) live() bool {
	return (w.served == nil || !*w.served) && (w.gone == nil || !w.gone())
}

// try performs one of w's operations if one can proceed without blocking.
// A send on a closed channel proceeds too: with a panic, which the
// goroutine raises when it resumes.
func (w *nativeWait) try() (done bool) {
	defer func() {
		if p := recover(); p != nil {
			w.panic, done = p, true
		}
	}()
	i, v, ok := reflect.Select(w.cases)
	if i == len(w.cases)-1 {
		return false
	}
	w.got(i, v, ok)
	return true
}

// newNativeWait makes the wait for the operations of cases (without a
// default case).
func newNativeWait(t *thread, cases []reflect.SelectCase, got func(int, reflect.Value, bool)) *nativeWait {
	return &nativeWait{t: t, cases: append(cases, reflect.SelectCase{Dir: reflect.SelectDefault}), got: got}
}

// parkNative parks t until w's operation proceeds (it is then done).
func (r *run) parkNative(t *thread, w *nativeWait, on string) {
	r.natives = append(r.natives, w)
	r.parkHere(t, on, -1)
	if w.panic != nil {
		panic(w.panic)
	}
}

// pollNative wakes the waiters whose operation can now proceed. parking,
// if not nil, is the goroutine parking right now: it is not tried, it just
// was.
func (r *run) pollNative(parking *thread) {
	for i := 0; i < len(r.natives); {
		w := r.natives[i]
		if !w.live() {
			r.natives = append(r.natives[:i], r.natives[i+1:]...)
			continue
		}
		if w.t == parking && parking != nil || !w.try() {
			i++
			continue
		}
		r.natives = append(r.natives[:i], r.natives[i+1:]...)
		r.nativeDone(w)
	}
}

// nativeDone completes w, whose operation proceeded: the goroutine is woken
// by the block under way (which readied the channel) or the tick, or the
// watch's action runs, as a tick's would.
func (r *run) nativeDone(w *nativeWait) {
	if !r.clock.Ticking() {
		for _, c := range w.cases[:len(w.cases)-1] {
			r.dataAccess(c.Chan.UnsafePointer(), 1, true)
		}
	}
	if w.served != nil {
		*w.served = true
	}
	if w.t != nil {
		r.wakeUp(w.t, -1)
		return
	}
	ticking := r.clock.SetTicking(true)
	w.fire()
	r.clock.SetTicking(ticking)
}

// awaitNative is the last resort of a tick (see vclock's Advance): no goroutine can
// run and no timer is pending, but some wait on channels xbtest does not
// control. It waits for one of them for real, for at most half the
// watchdog period (the watchdog would take the wait for a goroutine stuck
// in code xbtest does not control), and completes the waiter whose
// operation proceeded. It reports whether one did; if none did, every
// waiter is left waiting for good.
func (r *run) awaitNative() bool {
	var cases []reflect.SelectCase
	var owner []*nativeWait
	for _, w := range r.natives {
		if !w.live() || w.stuck {
			continue
		}
		for _, c := range w.cases[:len(w.cases)-1] {
			cases = append(cases, c)
			owner = append(owner, w)
		}
	}
	if len(cases) == 0 {
		return false
	}
	if r.cfg.Watchdog > 0 {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(time.After(r.cfg.Watchdog / 2))})
	}
	r.resumed.Add(1) // waiting here is progress, for the watchdog
	i, v, ok, closed := realSelect(cases)
	r.resumed.Add(1)
	if closed {
		// A send on a channel closed meanwhile: trying each waiter finds
		// whose, and it panics when it resumes.
		n := len(r.natives)
		r.pollNative(nil)
		return len(r.natives) < n
	}
	if i == len(owner) {
		for _, w := range owner {
			w.stuck = true
		}
		return false
	}
	w := owner[i]
	j := i
	for j > 0 && owner[j-1] == w {
		j--
	}
	w.got(i-j, v, ok)
	for k, x := range r.natives {
		if x == w {
			r.natives = append(r.natives[:k], r.natives[k+1:]...)
			break
		}
	}
	ticking := r.clock.SetTicking(true)
	r.nativeDone(w)
	r.clock.SetTicking(ticking)
	return true
}

// realSelect is reflect.Select, blocking; closed reports the panic of a send
// case whose channel is closed.
func realSelect(cases []reflect.SelectCase) (i int, v reflect.Value, ok, closed bool) {
	defer func() {
		if recover() != nil {
			closed = true
		}
	}()
	i, v, ok = reflect.Select(cases)
	return i, v, ok, false
}

// watch runs fire, as a tick does, when a scheduling point or a tick finds
// done (the Done channel of a context xbtest did not make) closed, unless
// gone() by then.
func (r *run) watch(done <-chan struct{}, fire func(), gone func() bool) {
	w := newNativeWait(nil, []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(done)}}, func(int, reflect.Value, bool) {})
	w.fire, w.gone = fire, gone
	r.natives = append(r.natives, w)
}
