package chanobj

import (
	"context"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// The context package on the virtual clock. The rewriter sends
// context.WithCancel, WithCancelCause, WithTimeout(Cause), WithDeadline(Cause),
// AfterFunc and Cause here. Inside an execution they return a vctx, a
// context.Context whose Done channel the scheduler made (its receives and
// selects are modelled) and whose deadline is a timer of the virtual clock.
// Cancelling is a block boundary and an operation on that channel; Err and
// Cause read the state the cancel wrote (behind a mutex in Go's
// implementation), so they are boundaries too. Outside an execution the
// hooks are the real functions.

var (
	errCanceled = context.Canceled
	errDeadline = context.DeadlineExceeded
)

// vctxKey is the Value key under which a vctx answers itself, so that a
// vctx wrapped by context.WithValue is still found (as Go's cancelCtxKey).
type vctxKey struct{}

type vctx struct {
	parent       context.Context
	x            engine.Exec // the execution that made it
	owner        *engine.G
	done         chan struct{}
	m            *chanState
	err, cause   error
	deadline     time.Time
	hasDeadline  bool
	timeoutCause error
	timer        *engine.Timer
	children     []*vctx
	afters       []*ctxAfter

	// The functions code xbtest does not control registered (AfterFunc):
	// a real goroutine may remove one (a real timer cancelling a context
	// derived from c), hence the lock.
	mu      sync.Mutex
	foreign []*func()
}

// ctxAfter is a function registered by context.AfterFunc.
type ctxAfter struct {
	f     func()
	owner *engine.G
}

func (c *vctx) Deadline() (time.Time, bool) {
	if c.hasDeadline {
		return c.deadline, true
	}
	return c.parent.Deadline()
}

func (c *vctx) Done() <-chan struct{} { return c.done }

func (c *vctx) Value(key any) any {
	if _, ok := key.(vctxKey); ok {
		return c
	}
	return c.parent.Value(key)
}

func (c *vctx) String() string {
	if c.hasDeadline {
		return "context.WithDeadline(" + c.deadline.String() + ")"
	}
	return "context.WithCancel"
}

// read is the frame of Err and Cause. Called by a function of the
// context package that c's cancellation runs (see AfterFunc), it only
// reads.
func (c *vctx) read(get func() error) error {
	if tablesIn(c.x).quiet > 0 {
		return get()
	}
	t := engine.Enter()
	if t == nil || t.Exec() != c.x {
		return get()
	}
	t.Event()
	t.DataAccess(c.m.addr, 1, false)
	err := get()
	if err != nil {
		t.Races().Observe(t.Index(), c.m.addr, races.RoleSend)
	}
	t.EndBlock()
	return err
}

func (c *vctx) Err() error { return c.read(func() error { return c.err }) }

// vctxOf returns the vctx of this execution ctx is or wraps, if ctx is
// cancelled exactly when it is.
func vctxOf(x engine.Exec, ctx context.Context) *vctx {
	c, ok := ctx.Value(vctxKey{}).(*vctx)
	if !ok || c.x != x || ctx.Done() != (<-chan struct{})(c.done) {
		return nil
	}
	return c
}

// newCtx makes a cancellable child of parent (Go's withCancel).
func newCtx(t *engine.G, parent context.Context) *vctx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	ch := MakeChan[struct{}](0)
	x := t.Exec()
	c := &vctx{parent: parent, x: x, owner: t, done: ch, m: model(t, chanPtr(ch))}
	c.m.what = " (ctx.Done() of the context made at " + srcpos.Caller(4) + ")"
	if p := vctxOf(x, parent); p != nil {
		if p.err != nil {
			c.cancel(t, false, false, p.err, p.cause)
		} else {
			p.children = append(p.children, c)
		}
		return c
	}
	if pd := parent.Done(); pd != nil {
		// A context xbtest did not make: c is cancelled when a scheduling
		// point finds the parent done (the engine's native.go).
		select {
		case <-pd:
			c.cancel(t, false, false, parent.Err(), context.Cause(parent))
		default:
			x.Watch(pd, func() {
				c.cancel(x.Running(), true, true, parent.Err(), context.Cause(parent))
			}, func() bool { return c.err != nil })
		}
	}
	return c
}

// AfterFunc makes a vctx what the context package calls an afterFuncer: a
// context that code xbtest does not control derives from c (a library's
// context.WithCancel(ctx)) is then cancelled by f, which c's cancellation
// calls at the same scheduling point, instead of by a goroutine of the
// context package waiting on c's Done channel, which xbtest would not
// control. f only reads c (Err, Cause) and cancels contexts that are not
// the scheduler's; the stop function may be called from any goroutine.
func (c *vctx) AfterFunc(f func()) (stop func() bool) {
	p := &f
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		c.runForeign([]*func(){p})
		return func() bool { return false }
	}
	c.foreign = append(c.foreign, p)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.foreign, p)
		if i >= 0 {
			c.foreign = slices.Delete(c.foreign, i, i+1)
		}
		return i >= 0
	}
}

// runForeign calls the functions code xbtest does not control registered
// with AfterFunc, with the hooks of c's Err and Cause quiet.
func (c *vctx) runForeign(fs []*func()) {
	s := tablesIn(c.x)
	s.quiet++
	defer func() { s.quiet-- }()
	for _, f := range fs {
		(*f)()
	}
}

// cancel closes c's Done channel, cancels its children and starts its
// AfterFunc functions. byClock: a tick at the deadline (no goroutine runs);
// otherwise t's block does it.
func (c *vctx) cancel(t *engine.G, byClock, detach bool, err, cause error) {
	if c.err != nil {
		return
	}
	x := c.x
	if cause == nil {
		cause = err
	}
	c.mu.Lock()
	c.err, c.cause = err, cause
	foreign := c.foreign
	c.foreign = nil
	c.mu.Unlock()
	if !byClock {
		x.Races().Publish(t.Index(), c.m.addr, races.RoleSend)
	}
	close(c.done)
	closed(x, c.m)
	c.runForeign(foreign)
	for _, k := range c.children {
		k.cancel(t, byClock, false, err, cause)
	}
	c.children = nil
	if c.timer != nil {
		x.StopTimer(c.timer)
		x.ClockAccess(true)
	}
	for _, a := range c.afters {
		x.SpawnFor(t, a.owner, a.f, byClock, unsafe.Pointer(a))
	}
	c.afters = nil
	if detach {
		if p := vctxOf(x, c.parent); p != nil {
			if i := slices.Index(p.children, c); i >= 0 {
				p.children = slices.Delete(p.children, i, i+1)
			}
		}
	}
}

// cancelFunc returns c's CancelCauseFunc: a boundary of the calling
// goroutine.
func (c *vctx) cancelFunc(err error) context.CancelCauseFunc {
	return func(cause error) {
		t := engine.Enter()
		if t == nil || t.Exec() != c.x {
			panic("xbtest: a context made in one execution was cancelled in another (or outside any)")
		}
		t.Event()
		t.DataAccess(c.m.addr, 1, true)
		c.cancel(t, false, true, err, cause)
		t.EndBlock()
	}
}

// ContextWithCancel replaces context.WithCancel.
func ContextWithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	t := engine.Enter()
	if t == nil {
		return context.WithCancel(parent)
	}
	c := newCtx(t, parent)
	f := c.cancelFunc(errCanceled)
	return c, func() { f(nil) }
}

// ContextWithCancelCause replaces context.WithCancelCause.
func ContextWithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	t := engine.Enter()
	if t == nil {
		return context.WithCancelCause(parent)
	}
	c := newCtx(t, parent)
	return c, c.cancelFunc(errCanceled)
}

// ContextWithDeadline replaces context.WithDeadline.
func ContextWithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return ContextWithDeadlineCause(parent, d, nil)
}

// ContextWithTimeout replaces context.WithTimeout.
func ContextWithTimeout(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return ContextWithDeadlineCause(parent, TimeNow().Add(timeout), nil)
}

// ContextWithTimeoutCause replaces context.WithTimeoutCause.
func ContextWithTimeoutCause(parent context.Context, timeout time.Duration, cause error) (context.Context, context.CancelFunc) {
	return ContextWithDeadlineCause(parent, TimeNow().Add(timeout), cause)
}

// ContextWithDeadlineCause replaces context.WithDeadlineCause.
func ContextWithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	t := engine.Enter()
	if t == nil {
		return context.WithDeadlineCause(parent, d, cause)
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return ContextWithCancel(parent) // the parent's deadline comes first
	}
	c := newCtx(t, parent)
	c.deadline, c.hasDeadline, c.timeoutCause = d, true, cause
	f := c.cancelFunc(errCanceled)
	if c.err == nil {
		if dur := d.Sub(t.Exec().Now()); dur <= 0 {
			c.cancel(t, false, true, errDeadline, cause)
		} else {
			c.timer = engine.TargetTimer(ctxDeadline{c}, 0)
			t.StartTimer(c.timer, dur)
		}
	}
	return c, func() { f(nil) }
}

// ContextCause replaces context.Cause.
func ContextCause(ctx context.Context) error {
	if t := engine.Enter(); t != nil {
		if c := vctxOf(t.Exec(), ctx); c != nil {
			return c.read(func() error { return c.cause })
		}
	}
	return context.Cause(ctx)
}

// ContextAfterFunc replaces context.AfterFunc: when ctx is cancelled, f
// starts on a new goroutine, a child of the caller.
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	t := engine.Enter()
	var c *vctx
	var x engine.Exec
	if t != nil {
		x = t.Exec()
		c = vctxOf(x, ctx)
	}
	if c == nil && (t == nil || ctx.Done() == nil) {
		return context.AfterFunc(ctx, f)
	}
	if c == nil {
		// A context xbtest did not make: f starts, on a goroutine xbtest
		// controls, when a scheduling point or a tick finds it done.
		t.Event()
		a := &ctxAfter{f: f, owner: t}
		t.Races().Publish(t.Index(), unsafe.Pointer(a), races.RoleSend)
		stopped, started := false, false
		x.Watch(ctx.Done(), func() {
			started = true
			x.SpawnFor(x.Running(), t, f, true, unsafe.Pointer(a))
		}, func() bool { return stopped })
		t.EndBlock()
		return func() bool {
			t := engine.Enter()
			if t == nil || t.Exec() != x {
				return false
			}
			t.Event()
			was := !stopped && !started
			stopped = true
			t.EndBlock()
			return was
		}
	}
	t.Event()
	t.DataAccess(c.m.addr, 1, true)
	a := &ctxAfter{f: f, owner: t}
	t.Races().Publish(t.Index(), unsafe.Pointer(a), races.RoleSend)
	if c.err != nil {
		x.SpawnFor(t, t, f, false, nil)
		t.EndBlock()
		return func() bool { return false }
	}
	c.afters = append(c.afters, a)
	t.EndBlock()
	return func() bool {
		t := engine.Enter()
		if t == nil || t.Exec() != c.x {
			return false
		}
		t.Event()
		t.DataAccess(c.m.addr, 1, true)
		i := slices.Index(c.afters, a)
		if i >= 0 {
			c.afters = slices.Delete(c.afters, i, i+1)
		}
		t.EndBlock()
		return i >= 0
	}
}

// ctxDeadline is the deadline of a context with one: what its timer acts
// on (an engine.TimerTarget).
type ctxDeadline struct{ c *vctx }

// Fire implements engine.TimerTarget: the context is cancelled, by a tick
// (by, if not nil, is the goroutine that ran the last block) or eagerly by
// the clock's own block, which writes its Done channel.
func (d ctxDeadline) Fire(x engine.Exec, by *engine.G, tm *engine.Timer, eager bool) {
	c := d.c
	if eager && c.m != nil {
		x.DataAccess(c.m.addr, 1, true)
	}
	x.StopTimer(tm)
	c.cancel(by, true, true, errDeadline, c.timeoutCause)
}

// Idle implements engine.TimerTarget: a deadline is never idle.
func (ctxDeadline) Idle() bool { return false }

// FiresAtOnce implements engine.TimerTarget: only a sleep and a timer
// channel nobody can stop do.
func (ctxDeadline) FiresAtOnce() bool { return false }

// Wakes implements engine.TimerTarget: g waits on the Done channel of the
// context or of one derived from it.
func (d ctxDeadline) Wakes(g *engine.G) bool { return d.c.waits(g) }

// waits reports whether g waits on the Done channel of c or of a context
// derived from c.
func (c *vctx) waits(g *engine.G) bool {
	if c == nil {
		return false
	}
	if c.m.waits(g) {
		return true
	}
	for _, k := range c.children {
		if k.waits(g) {
			return true
		}
	}
	return false
}
