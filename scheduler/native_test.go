package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// Channels made by code xbtest does not control: here the test calls the
// real context package directly, as a library would.

// A context a library derives from one of the scheduler's is cancelled at
// the same scheduling point as its parent, by a cancel from another
// goroutine or by the virtual clock; a goroutine waiting on its Done
// channel, alone or in a select, is woken then.
func TestContextDerivedByUnmodifiedCode(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			start := xb.TimeNow()
			ctx, cancel := xb.ContextWithCancel(context.Background())
			lib, stop := context.WithCancel(ctx) // not rewritten
			defer stop()
			xb.Go(func() { cancel() })
			xb.Recv(lib.Done())
			tctx, tcancel := xb.ContextWithTimeout(context.Background(), time.Hour)
			defer tcancel()
			tlib, tstop := context.WithCancel(tctx)
			defer tstop()
			ch := xb.MakeChan[int](0)
			i, _ := xb.Select(false, xb.RecvCase(ch, nil), xb.RecvCase(tlib.Done(), nil))
			out(fmt.Sprint(lib.Err(), " ", i, " ", tlib.Err(), " after ", xb.TimeSince(start)))
		}
	})
	if want := []string{"context canceled 1 context deadline exceeded after 1h0m0s"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A select over a channel xbtest controls and one it does not: either may
// win when both are ready, in different schedules.
func TestSelectOverAControlledAndANativeChannel(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			ctx, cancel := xb.ContextWithCancel(context.Background())
			lib, stop := context.WithCancel(ctx)
			defer stop()
			ch := xb.MakeChan[int](1)
			xb.Go(func() { xb.Send(ch, 1) })
			xb.Go(func() { cancel() })
			i, _ := xb.Select(false, xb.RecvCase(ch, nil), xb.RecvCase(lib.Done(), nil))
			out(fmt.Sprint("case ", i))
		}
	})
	if !slices.Equal(got, []string{"case 0", "case 1"}) {
		t.Errorf("got %q", got)
	}
}

// A context of the scheduler's whose parent it did not make is cancelled
// when a scheduling point finds the parent done: here a goroutine calls the
// parent's real cancel function.
func TestContextWithAParentOfUnmodifiedCode(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			cause := fmt.Errorf("shut down")
			parent, cancel := context.WithCancelCause(context.Background()) // not rewritten
			ctx, stop := xb.ContextWithCancel(parent)
			defer stop()
			xb.Go(func() { cancel(cause) })
			xb.Recv(ctx.Done())
			out(fmt.Sprint(ctx.Err(), ": ", xb.ContextCause(ctx)))
		}
	})
	if want := []string{"context canceled: shut down"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// When nothing else can happen, the scheduler waits for real for a
// goroutine of code it does not control to ready the channel.
func TestNativeChannelReadiedByAnUncontrolledGoroutine(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			ch := make(chan int) // made by code xbtest does not control
			go func() { ch <- 42 }()
			xb.Go(func() {})
			out(fmt.Sprint(xb.Recv(ch)))
		}
	})
	if !slices.Equal(got, []string{"42"}) {
		t.Errorf("got %q", got)
	}
}

// A goroutine waiting on a channel nothing readies, within half the
// watchdog period of real waiting, is reported like any goroutine blocked
// forever, naming the channel as one xbtest does not control; the process
// is not tainted (the next exploration runs).
func TestNativeChannelNobodyReadies(t *testing.T) {
	cfg := xb.DefaultConfig()
	cfg.Watchdog = time.Second
	var pos string
	res := explore(t, t.Name(), func(*xb.T) {
		ch := make(chan int)
		xb.Go(func() {
			pos = next()
			xb.Select(false, xb.RecvCase(ch, nil), xb.RecvCase(xb.MakeChan[int](0), nil))
		})
	}, cfg)
	if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
		t.Fatalf("findings %+v", res.Findings)
	}
	g := res.Findings[0].Goroutines
	if want := "select: chan receive (a channel made by code xbtest does not control); chan receive"; len(g) != 1 || g[0].ID != "T0.1" || g[0].On != want || g[0].Pos != pos {
		t.Errorf("goroutines %+v, want T0.1 on %q at %s", g, want, pos)
	}
	none(t, func(*xb.T) { xb.Go(func() {}) })
}

// A send on a channel xbtest does not control that another goroutine's
// call into the library closes panics in the sender, as Go's does.
func TestNativeSendOnClosedChannelPanicsInTheSender(t *testing.T) {
	f := one(t, func(*xb.T) {
		ch := make(chan int)
		closeIt := func() { close(ch) } // a library's
		done := xb.MakeChan[bool](0)
		xb.Go(func() {
			defer xb.Send(done, true)
			xb.Send(ch, 1)
		})
		closeIt()
		xb.Step()
		xb.Recv(done)
	}, result.Panic, "send on closed channel")
	if len(f.Goroutines) == 0 || !strings.HasPrefix(f.Goroutines[0].ID, "T0.1") {
		t.Errorf("goroutines %+v", f.Goroutines)
	}
}

// context.AfterFunc on a context xbtest did not make starts the function on
// a goroutine xbtest controls once a scheduling point finds the context
// done; stopping it before prevents that.
func TestContextAfterFuncOnAContextOfUnmodifiedCode(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(*xb.T) {
			parent, cancel := context.WithCancel(context.Background()) // not rewritten
			ran := xb.MakeChan[string](1)
			xb.ContextAfterFunc(parent, func() { xb.Send(ran, "ran") })
			stop := xb.ContextAfterFunc(parent, func() { xb.Send(ran, "stopped one ran") })
			stopped := stop()
			xb.Go(func() { cancel() })
			out(fmt.Sprint(xb.Recv(ran), " ", stopped, " ", stop()))
		}
	})
	if want := []string{"ran true false"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
