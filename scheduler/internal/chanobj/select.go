package chanobj

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Case is one case of a select statement, built by SendCase or RecvCase.
type Case interface {
	chanAddr() unsafe.Pointer
	// ready reports whether the case can proceed without blocking.
	ready(x engine.Exec, m *chanState) bool
	// commit performs a ready case, t's, and returns the receive's ok.
	commit(t *engine.G, m *chanState) bool
	// enqueue parks the select's goroutine on the case's channel.
	enqueue(m *chanState, t *engine.G, sel *selectWait, i int)
	// tryNative attempts the case on a channel without a model.
	tryNative() (ok, done bool)
	reflectCase() reflect.SelectCase
	received(v reflect.Value, ok bool)
}

// SendCase is the case `case ch <- v`.
func SendCase[T any](ch chan<- T, v T) Case { return &sendCase[T]{ch: ch, v: v} }

// RecvCase is the case `case x, ok := <-ch`; the received value is stored
// in *dst unless dst is nil.
func RecvCase[T any](ch <-chan T, dst *T) Case { return &recvCase[T]{ch: ch, dst: dst} }

type sendCase[T any] struct {
	ch chan<- T
	v  T
}

func (c *sendCase[T]) chanAddr() unsafe.Pointer { return chanPtr(c.ch) }

func (c *sendCase[T]) ready(x engine.Exec, m *chanState) bool {
	return m.closed || hasLive(m.recvq) || len(c.ch) < cap(c.ch)
}

func (c *sendCase[T]) commit(t *engine.G, m *chanState) bool {
	if m.closed {
		panic(runtimeError("send on closed channel"))
	}
	if sg := popLive(&m.recvq); sg != nil {
		t.Races().HandOver(t.Index(), sg.t.Index(), &m.hb, m.addr, cap(c.ch))
		deliver(t.Exec(), sg, c.v, true)
		return false
	}
	n := len(c.ch)
	if !trySend(c.ch, c.v) {
		t.InternalError("a ready send case could not send")
	}
	t.Races().SendDone(t.Index(), &m.hb, m.addr, n, cap(c.ch), true)
	return false
}

func (c *sendCase[T]) enqueue(m *chanState, t *engine.G, sel *selectWait, i int) {
	m.sendq = append(m.sendq, &sudog{t: t, val: c.v, sel: sel, cas: i})
}

func (c *sendCase[T]) tryNative() (bool, bool) { return false, trySend(c.ch, c.v) }

func (c *sendCase[T]) reflectCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(c.ch), Send: reflect.ValueOf(&c.v).Elem()}
}

func (c *sendCase[T]) received(reflect.Value, bool) {}

type recvCase[T any] struct {
	ch  <-chan T
	dst *T
}

func (c *recvCase[T]) chanAddr() unsafe.Pointer { return chanPtr(c.ch) }

func (c *recvCase[T]) ready(x engine.Exec, m *chanState) bool {
	if len(c.ch) > 0 || hasLive(m.sendq) || m.closed {
		return true
	}
	if m.timer != nil {
		return x.TimerDue(m.timer)
	}
	// Empty and no sender: a receive commits to nothing unless the channel
	// was closed by code xbtest does not control.
	if _, _, got := tryRecv(c.ch); got {
		m.closed = true
		return true
	}
	return false
}

func (c *recvCase[T]) store(v T) {
	if c.dst != nil {
		*c.dst = v
	}
}

func (c *recvCase[T]) commit(t *engine.G, m *chanState) bool {
	x := t.Exec()
	if m.timer != nil && x.TimerDue(m.timer) {
		c.store(as[T](x.TakeTimer(m.timer)))
		return true
	}
	if v, got := recvModel(t, m, bidi(c.ch)); got {
		c.store(v.v)
		return v.ok
	}
	if sg := popLive(&m.sendq); sg != nil {
		t.Races().HandOver(sg.t.Index(), t.Index(), &m.hb, m.addr, cap(c.ch))
		sg.fire(x, true)
		x.Wake(sg.t)
		c.store(as[T](sg.val))
		return true
	}
	var zero T
	c.store(zero)
	return false
}

func (c *recvCase[T]) enqueue(m *chanState, t *engine.G, sel *selectWait, i int) {
	m.recvq = append(m.recvq, &sudog{t: t, sel: sel, cas: i, recv: func(v any) { c.store(as[T](v)) }})
}

func (c *recvCase[T]) tryNative() (bool, bool) {
	v, ok, got := tryRecv(c.ch)
	if got {
		c.store(v)
	}
	return ok, got
}

func (c *recvCase[T]) reflectCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.ch)}
}

func (c *recvCase[T]) received(v reflect.Value, ok bool) {
	if ok {
		c.store(v.Interface().(T))
	} else {
		var zero T
		c.store(zero)
	}
}

// Select replaces a select statement: it returns the index of the case that
// proceeded (-1 for default) and, for a receive, whether a value was
// received. When several cases are ready the choice is a branch point of the
// exploration; the first schedule takes the first ready case.
func Select(hasDefault bool, cases ...Case) (int, bool) {
	t := engine.Enter()
	if t == nil {
		return nativeSelect(hasDefault, cases)
	}
	t.OpPoint()
	t.Event()
	x := t.Exec()
	models := make([]*chanState, len(cases))
	var ready []int32
	var native []int
	live := false
	for i, c := range cases {
		p := c.chanAddr()
		if p == nil {
			continue // a nil channel's case never proceeds
		}
		live = true
		m := model(t, p)
		if m == nil {
			native = append(native, i)
			continue
		}
		models[i] = m
		t.DataAccess(m.addr, 1, true)
		if c.ready(x, m) {
			ready = append(ready, int32(i))
		}
	}
	if len(ready) > 0 {
		i := int(t.Choose(ready))
		ok := cases[i].commit(t, models[i])
		t.EndBlock()
		return i, ok
	}
	for _, i := range native {
		if ok, done := cases[i].tryNative(); done {
			t.EndBlock()
			return i, ok
		}
	}
	if hasDefault {
		t.EndBlock()
		return -1, false
	}
	if !live {
		parkForever(t, "select with no cases")
	}
	sel := &selectWait{}
	for i, c := range cases {
		if models[i] != nil {
			sel.chans = append(sel.chans, models[i].addr)
			c.enqueue(models[i], t, sel, i)
		}
	}
	if len(native) == 0 {
		t.Park(selectOn(cases, models), -1)
	} else {
		// Channels made by code xbtest does not control (native.go).
		rc := make([]reflect.SelectCase, len(native))
		for j, i := range native {
			rc[j] = cases[i].reflectCase()
			t.DataAccess(cases[i].chanAddr(), 1, true)
		}
		t.ParkNative(rc, func(j int, v reflect.Value, ok bool) {
			i := native[j]
			cases[i].received(v, ok)
			sel.chosen, sel.ok = i, ok
		}, &sel.done, selectOn(cases, models))
	}
	if _, send := cases[sel.chosen].(sendCaseMarker); send && !sel.ok {
		panic(runtimeError("send on closed channel"))
	}
	return sel.chosen, sel.ok
}

// selectOn describes a blocked select for reports: "select", followed by
// its cases when one of them is a timer's or a context's channel, or one
// xbtest does not control, which the position of the select does not name
// ("select: chan send; chan receive (ctx.Done() of the context made at
// f.go:12)").
func selectOn(cases []Case, models []*chanState) string {
	what := func(i int) string {
		if models[i] != nil {
			return models[i].what
		}
		return engine.NotControlled
	}
	named := false
	for i, c := range cases {
		if c.chanAddr() != nil && what(i) != "" {
			named = true
		}
	}
	if !named {
		return "select"
	}
	var b strings.Builder
	b.WriteString("select: ")
	sep := ""
	for i, c := range cases {
		if c.chanAddr() == nil {
			continue
		}
		b.WriteString(sep)
		sep = "; "
		if _, send := c.(sendCaseMarker); send {
			b.WriteString("chan send")
		} else {
			b.WriteString("chan receive")
		}
		b.WriteString(what(i))
	}
	return b.String()
}

// sendCaseMarker identifies send cases.
type sendCaseMarker interface{ isSend() }

func (c *sendCase[T]) isSend() {}

func nativeSelect(hasDefault bool, cases []Case) (int, bool) {
	rc := make([]reflect.SelectCase, 0, len(cases)+1)
	for _, c := range cases {
		if c.chanAddr() == nil {
			rc = append(rc, reflect.SelectCase{Dir: reflect.SelectRecv})
			continue
		}
		rc = append(rc, c.reflectCase())
	}
	if hasDefault {
		rc = append(rc, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(rc)
	if i == len(cases) {
		return -1, false
	}
	cases[i].received(v, ok)
	return i, ok
}
