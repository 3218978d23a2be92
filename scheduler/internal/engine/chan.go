package engine

import (
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"sync"
	"unsafe"
)

// Channels.
//
// Whether an unbuffered send can proceed cannot be asked of a Go channel
// without committing to the send, so the scheduler keeps a model of every
// channel instrumented code makes: the goroutines parked on it, with the
// values they send. The buffered values stay in the real channel, which is
// what the program holds; an operation first tries the real channel without
// blocking (which also lets code xbtest does not control use it), then pairs
// with a parked partner, then parks. Channels made by code xbtest does not
// control have no model; operations on them are tried without blocking and
// otherwise block for real (virtual time will drive timer channels).

// runtimeError is a panic value like the runtime's own (it implements
// runtime.Error).
type runtimeError string

func (e runtimeError) Error() string { return string(e) }
func (e runtimeError) RuntimeError() {}

// chanState is the model of one channel during one execution.
type chanState struct {
	id     int32
	addr   unsafe.Pointer
	closed bool
	what   string  // for reports: the channel of a timer or context, "" for others
	timer  *vtimer // the timer whose channel this is (timers.go), or nil
	recvq  []*sudog
	sendq  []*sudog
	hb     races.ChanHB // happens-before of its values (package races)
}

// sudog is a goroutine parked on a channel, as in Go's runtime.
type sudog struct {
	t    *thread
	val  any  // the value to send, or the value received
	ok   bool // receive: a value (not a close); send: done (not closed)
	sel  *selectWait
	cas  int         // the select case
	recv func(v any) // a select's receive case stores the value
}

// selectWait ties the sudogs of one blocked select together.
type selectWait struct {
	done   bool
	chosen int
	ok     bool
	chans  []unsafe.Pointer // the channels of its cases, for fire
}

// live reports whether sg is still waiting (a select may have been served
// by another of its channels).
func (sg *sudog) live() bool { return sg.sel == nil || !sg.sel.done }

// fire marks sg served and records the outcome for a select. Serving a
// select decides which of its cases it takes: for ExitBlock-RW the block
// that serves it touches every channel of the select, since an operation
// on another of them, in the other order, would have served it instead and
// left this block's operation waiting or failing (a select with a default
// case that sends to it). Recorded only on this one channel, the two blocks
// looked independent and the order in which the non-blocking send wins was
// lost (corpus/gosync TestSelectServedFirst).
func (sg *sudog) fire(r *run, ok bool) {
	sg.ok = ok
	if sg.sel != nil {
		sg.sel.done, sg.sel.chosen, sg.sel.ok = true, sg.cas, ok
		for _, p := range sg.sel.chans {
			r.dataAccess(p, 1, true)
		}
	}
}

func popLive(q *[]*sudog) *sudog {
	for len(*q) > 0 {
		sg := (*q)[0]
		*q = (*q)[1:]
		if sg.live() {
			return sg
		}
	}
	return nil
}

func hasLive(q []*sudog) bool {
	for _, sg := range q {
		if sg.live() {
			return true
		}
	}
	return false
}

// madeOutside holds channels instrumented code made outside any execution
// (package initialisation); executions adopt them.
var madeOutside sync.Map

func chanPtr[C any](ch C) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

// MakeChan replaces make(chan T, size).
func MakeChan[T any](size int) chan T {
	ch := make(chan T, size)
	r, t := enter()
	p := chanPtr(ch)
	if r == nil {
		madeOutside.Store(p, true)
		return ch
	}
	r.chans[p] = &chanState{id: r.newObj(), addr: p}
	r.alloc(t, p, 1, nil)
	return ch
}

// model returns the model of the channel at p, or nil for a channel made by
// code xbtest does not control.
func (r *run) model(p unsafe.Pointer) *chanState {
	if m, ok := r.chans[p].(*chanState); ok {
		return m
	}
	if _, ok := madeOutside.Load(p); ok {
		m := &chanState{id: r.newObj(), addr: p}
		r.chans[p] = m
		return m
	}
	return nil
}

// parkForever blocks t for good (an operation on a nil channel, an empty
// select).
func (r *run) parkForever(t *thread, on string) {
	r.parkHere(t, on, -1)
	r.internalError(t, "a goroutine blocked forever was woken")
}

func trySend[T any](ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	default:
		return false
	}
}

func tryRecv[T any](ch <-chan T) (v T, ok, got bool) {
	select {
	case v, ok = <-ch:
		return v, ok, true
	default:
		return v, false, false
	}
}

func as[T any](v any) T {
	x, _ := v.(T)
	return x
}

// Send replaces ch <- v.
func Send[T any](ch chan<- T, v T) {
	r, t := enter()
	if r == nil {
		ch <- v
		return
	}
	r.opPoint(t)
	r.event(t)
	if ch == nil {
		r.parkForever(t, "nil channel (send)")
	}
	m := r.model(chanPtr(ch))
	if m == nil {
		sendNative(r, t, ch, v)
		return
	}
	r.dataAccess(m.addr, 1, true)
	if m.closed {
		panic(runtimeError("send on closed channel"))
	}
	if sg := popLive(&m.recvq); sg != nil {
		r.race.HandOver(t.idx, sg.t.idx, &m.hb, m.addr, cap(ch))
		r.deliver(sg, v, true)
		r.yield(t)
		return
	}
	if n := len(ch); trySend(ch, v) {
		r.race.SendDone(t.idx, &m.hb, m.addr, n, cap(ch), true)
		r.yield(t)
		return
	}
	sg := &sudog{t: t, val: v}
	m.sendq = append(m.sendq, sg)
	r.parkHere(t, "chan send", m.id)
	if !sg.ok {
		panic(runtimeError("send on closed channel"))
	}
}

// deliver hands v to a parked receiver and wakes it.
func (r *run) deliver(sg *sudog, v any, ok bool) {
	sg.val = v
	if sg.recv != nil {
		sg.recv(v)
	}
	sg.fire(r, ok)
	r.wakeUp(sg.t, -1)
}

// Recv replaces <-ch.
func Recv[T any](ch <-chan T) T {
	v, _ := Recv2(ch)
	return v
}

// Recv2 replaces v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) {
	r, t := enter()
	if r == nil {
		v, ok := <-ch
		return v, ok
	}
	r.opPoint(t)
	r.event(t)
	if ch == nil {
		r.parkForever(t, "nil channel (receive)")
	}
	m := r.model(chanPtr(ch))
	if m == nil {
		return recvNative(r, t, ch)
	}
	r.dataAccess(m.addr, 1, true)
	if tm := m.timer; tm != nil && r.clock.Due(tm) {
		v := r.clock.Take(tm)
		r.yield(t)
		return as[T](v), true
	}
	if v, ok := recvModel(r, t, m, bidi(ch)); ok {
		r.yield(t)
		return v.v, v.ok
	}
	if sg := popLive(&m.sendq); sg != nil {
		r.race.HandOver(sg.t.idx, t.idx, &m.hb, m.addr, cap(ch))
		sg.fire(r, true)
		r.wakeUp(sg.t, -1)
		r.yield(t)
		return as[T](sg.val), true
	}
	sg := &sudog{t: t}
	m.recvq = append(m.recvq, sg)
	r.parkHere(t, "chan receive"+m.what, m.id)
	return as[T](sg.val), sg.ok
}

// received is what a receive got: the value and ok.
type received[T any] struct {
	v  T
	ok bool
}

// recvModel receives from the buffer of a channel with a model, or the
// zero value of a closed one, without blocking (got reports whether it
// did), with the happens-before edges of the receive and of the send of a
// parked sender that takes the freed slot.
func recvModel[T any](r *run, t *thread, m *chanState, ch chan T) (v received[T], got bool) {
	n := len(ch)
	v.v, v.ok, got = tryRecv(ch)
	switch {
	case !got:
	case v.ok:
		r.race.RecvDone(t.idx, &m.hb, m.addr, n, cap(ch))
		refill(r, m, ch)
	default:
		m.closed = true
		r.race.ClosedRecv(t.idx, m.addr)
	}
	return v, got
}

// bidi returns the channel a directional channel value refers to.
func bidi[T any](ch <-chan T) chan T { return *(*chan T)(unsafe.Pointer(&ch)) }

// refill moves the value of a sender parked on a full buffer into the slot a
// receive just freed, and wakes the sender.
func refill[T any](r *run, m *chanState, ch chan T) {
	sg := popLive(&m.sendq)
	if sg == nil {
		return
	}
	n := len(ch)
	if !trySend(ch, as[T](sg.val)) {
		m.sendq = append([]*sudog{sg}, m.sendq...)
		return
	}
	r.race.SendDone(sg.t.idx, &m.hb, m.addr, n, cap(ch), true)
	sg.fire(r, true)
	r.wakeUp(sg.t, -1)
}

// Close replaces close(ch).
func Close[T any](ch chan<- T) {
	r, t := enter()
	if r == nil {
		close(ch)
		return
	}
	r.opPoint(t)
	r.event(t)
	if ch == nil {
		panic(runtimeError("close of nil channel"))
	}
	m := r.model(chanPtr(ch))
	if m == nil {
		close(ch)
		r.yield(t)
		return
	}
	r.dataAccess(m.addr, 1, true)
	close(ch) // panics "close of closed channel" as Go does
	r.race.Publish(t.idx, m.addr, races.RoleSend)
	r.closed(m)
	r.yield(t)
}

// closed wakes everyone parked on a channel that was just closed: receivers
// get the zero value, senders panic.
func (r *run) closed(m *chanState) {
	m.closed = true
	for _, sg := range m.recvq {
		if sg.live() {
			r.deliver(sg, nil, false)
		}
	}
	for _, sg := range m.sendq {
		if sg.live() {
			sg.fire(r, false)
			r.wakeUp(sg.t, -1)
		}
	}
	m.recvq, m.sendq = nil, nil
}

// Len replaces len(ch).
func Len[T any](ch <-chan T) int {
	if r, t := enter(); r != nil {
		r.opPoint(t)
		r.event(t)
		if m := r.model(chanPtr(ch)); m != nil {
			r.dataAccess(m.addr, 1, false)
		}
	}
	return len(ch)
}

// LenSend replaces len(ch) for a send-only channel.
func LenSend[T any](ch chan<- T) int {
	if r, t := enter(); r != nil {
		r.opPoint(t)
		r.event(t)
		if m := r.model(chanPtr(ch)); m != nil {
			r.dataAccess(m.addr, 1, false)
		}
	}
	return len(ch)
}
