package chanobj

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
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
// otherwise wait as the engine's native waiters (native.go).

// runtimeError is the engine's: a panic the scheduler raises for the
// program, which is no fault of xbtest's.
type runtimeError = engine.RuntimeError

// chanState is the model of one channel during one execution.
type chanState struct {
	id     int32
	addr   unsafe.Pointer
	closed bool
	what   string        // for reports: the channel of a timer or context, "" for others
	timer  *engine.Timer // the timer whose channel this is (timers.go), or nil
	recvq  []*sudog
	sendq  []*sudog
	hb     races.ChanHB // happens-before of its values (package races)
}

// sudog is a goroutine parked on a channel, as in Go's runtime.
type sudog struct {
	t    *engine.G
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
func (sg *sudog) fire(x engine.Exec, ok bool) {
	sg.ok = ok
	if sg.sel != nil {
		sg.sel.done, sg.sel.chosen, sg.sel.ok = true, sg.cas, ok
		for _, p := range sg.sel.chans {
			x.DataAccess(p, 1, true)
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

// waits reports whether t is parked on m (a receive, or a select with a
// receive case on it).
func (m *chanState) waits(t *engine.G) bool {
	if m == nil {
		return false
	}
	for _, sg := range m.recvq {
		if sg.t == t && sg.live() {
			return true
		}
	}
	return false
}

func chanPtr[C any](ch C) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

// MakeChan replaces make(chan T, size).
func MakeChan[T any](size int) chan T {
	ch := make(chan T, size)
	t := engine.Enter()
	p := chanPtr(ch)
	if t == nil {
		madeOutside.Store(p, true)
		return ch
	}
	tablesOf(t).chans[p] = &chanState{id: t.NewObject(), addr: p}
	t.Allocated(p, 1)
	return ch
}

// parkForever blocks t for good (an operation on a nil channel, an empty
// select).
func parkForever(t *engine.G, on string) {
	t.Park(on, -1)
	t.InternalError("a goroutine blocked forever was woken")
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
	t := engine.Enter()
	if t == nil {
		ch <- v
		return
	}
	t.OpPoint()
	t.Event()
	if ch == nil {
		parkForever(t, "nil channel (send)")
	}
	m := model(t, chanPtr(ch))
	if m == nil {
		sendNative(t, ch, v)
		return
	}
	t.DataAccess(m.addr, 1, true)
	if m.closed {
		panic(runtimeError("send on closed channel"))
	}
	x := t.Exec()
	if sg := popLive(&m.recvq); sg != nil {
		t.Races().HandOver(t.Index(), sg.t.Index(), &m.hb, m.addr, cap(ch))
		deliver(x, sg, v, true)
		t.EndBlock()
		return
	}
	if n := len(ch); trySend(ch, v) {
		t.Races().SendDone(t.Index(), &m.hb, m.addr, n, cap(ch), true)
		t.EndBlock()
		return
	}
	sg := &sudog{t: t, val: v}
	m.sendq = append(m.sendq, sg)
	t.Park("chan send", m.id)
	if !sg.ok {
		panic(runtimeError("send on closed channel"))
	}
}

// deliver hands v to a parked receiver and wakes it.
func deliver(x engine.Exec, sg *sudog, v any, ok bool) {
	sg.val = v
	if sg.recv != nil {
		sg.recv(v)
	}
	sg.fire(x, ok)
	x.Wake(sg.t)
}

// Recv replaces <-ch.
func Recv[T any](ch <-chan T) T {
	v, _ := Recv2(ch)
	return v
}

// Recv2 replaces v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) {
	t := engine.Enter()
	if t == nil {
		v, ok := <-ch
		return v, ok
	}
	t.OpPoint()
	t.Event()
	if ch == nil {
		parkForever(t, "nil channel (receive)")
	}
	m := model(t, chanPtr(ch))
	if m == nil {
		return recvNative(t, ch)
	}
	t.DataAccess(m.addr, 1, true)
	x := t.Exec()
	if tm := m.timer; tm != nil && x.TimerDue(tm) {
		v := x.TakeTimer(tm)
		t.EndBlock()
		return as[T](v), true
	}
	if v, ok := recvModel(t, m, bidi(ch)); ok {
		t.EndBlock()
		return v.v, v.ok
	}
	if sg := popLive(&m.sendq); sg != nil {
		t.Races().HandOver(sg.t.Index(), t.Index(), &m.hb, m.addr, cap(ch))
		sg.fire(x, true)
		x.Wake(sg.t)
		t.EndBlock()
		return as[T](sg.val), true
	}
	sg := &sudog{t: t}
	m.recvq = append(m.recvq, sg)
	t.Park("chan receive"+m.what, m.id)
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
func recvModel[T any](t *engine.G, m *chanState, ch chan T) (v received[T], got bool) {
	n := len(ch)
	v.v, v.ok, got = tryRecv(ch)
	switch {
	case !got:
	case v.ok:
		t.Races().RecvDone(t.Index(), &m.hb, m.addr, n, cap(ch))
		refill(t.Exec(), m, ch)
	default:
		m.closed = true
		t.Races().ClosedRecv(t.Index(), m.addr)
	}
	return v, got
}

// bidi returns the channel a directional channel value refers to.
func bidi[T any](ch <-chan T) chan T { return *(*chan T)(unsafe.Pointer(&ch)) }

// refill moves the value of a sender parked on a full buffer into the slot a
// receive just freed, and wakes the sender.
func refill[T any](x engine.Exec, m *chanState, ch chan T) {
	sg := popLive(&m.sendq)
	if sg == nil {
		return
	}
	n := len(ch)
	if !trySend(ch, as[T](sg.val)) {
		m.sendq = append([]*sudog{sg}, m.sendq...)
		return
	}
	x.Races().SendDone(sg.t.Index(), &m.hb, m.addr, n, cap(ch), true)
	sg.fire(x, true)
	x.Wake(sg.t)
}

// Close replaces close(ch).
func Close[T any](ch chan<- T) {
	t := engine.Enter()
	if t == nil {
		close(ch)
		return
	}
	t.OpPoint()
	t.Event()
	if ch == nil {
		panic(runtimeError("close of nil channel"))
	}
	m := model(t, chanPtr(ch))
	if m == nil {
		close(ch)
		t.EndBlock()
		return
	}
	t.DataAccess(m.addr, 1, true)
	close(ch) // panics "close of closed channel" as Go does
	t.Races().Publish(t.Index(), m.addr, races.RoleSend)
	closed(t.Exec(), m)
	t.EndBlock()
}

// closed wakes everyone parked on a channel that was just closed: receivers
// get the zero value, senders panic.
func closed(x engine.Exec, m *chanState) {
	m.closed = true
	for _, sg := range m.recvq {
		if sg.live() {
			deliver(x, sg, nil, false)
		}
	}
	for _, sg := range m.sendq {
		if sg.live() {
			sg.fire(x, false)
			x.Wake(sg.t)
		}
	}
	m.recvq, m.sendq = nil, nil
}

// Len replaces len(ch).
func Len[T any](ch <-chan T) int {
	t := lenOp(chanPtr(ch))
	n := len(ch)
	lenDone(t)
	return n
}

// LenSend replaces len(ch) for a send-only channel.
func LenSend[T any](ch chan<- T) int {
	t := lenOp(chanPtr(ch))
	n := len(ch)
	lenDone(t)
	return n
}

// lenOp is len's operation on the channel at p: a read of it. It returns
// the calling goroutine, or nil outside an execution.
func lenOp(p unsafe.Pointer) *engine.G {
	t := engine.Enter()
	if t != nil {
		t.OpPoint()
		t.Event()
		if m := model(t, p); m != nil {
			t.DataAccess(m.addr, 1, false)
		}
	}
	return t
}

// lenDone ends the block after len has read the channel: len observes the
// other goroutines' sends and receives, which Go lets happen between any
// two of its instructions, so a goroutine polling len(ch) must see them (it
// gives way as one polling an atomic does). As a read inside a block it
// saw the same count forever (go-watermill's
// TestPublishSubscribe_flush_output_channel: a false nontermination).
func lenDone(t *engine.G) {
	if t != nil {
		t.EndBlock()
	}
}
