package scheduler

import (
	"context"
	"time"

	"github.com/xbtest/xbtest/scheduler/internal/chanobj"
)

// Time on the virtual clock: package time's functions, timers and tickers,
// and contexts with deadlines.

// TimeNow replaces time.Now. Reading the clock is no scheduling point, but
// it is a step: a loop that polls the clock without blocking, which never
// sees time pass, is stopped by the step bound.
func TimeNow() time.Time { return chanobj.TimeNow() }

// TimeSince replaces time.Since.
func TimeSince(t time.Time) time.Duration { return chanobj.TimeSince(t) }

// TimeUntil replaces time.Until.
func TimeUntil(t time.Time) time.Duration { return chanobj.TimeUntil(t) }

// TimeSleep replaces time.Sleep: the goroutine waits for its deadline, which
// only a tick reaches. Sleep(0) returns at once, as Go's does.
func TimeSleep(d time.Duration) { chanobj.TimeSleep(d) }

// TimeNewTimer replaces time.NewTimer.
func TimeNewTimer(d time.Duration) *time.Timer { return chanobj.TimeNewTimer(d) }

// TimeAfter replaces time.After.
func TimeAfter(d time.Duration) <-chan time.Time { return chanobj.TimeAfter(d) }

// TimeAfterFunc replaces time.AfterFunc: at the deadline f starts on a new
// goroutine, a child of the caller.
func TimeAfterFunc(d time.Duration, f func()) *time.Timer { return chanobj.TimeAfterFunc(d, f) }

// TimeNewTicker replaces time.NewTicker.
func TimeNewTicker(d time.Duration) *time.Ticker { return chanobj.TimeNewTicker(d) }

// TimeTick replaces time.Tick.
func TimeTick(d time.Duration) <-chan time.Time { return chanobj.TimeTick(d) }

// TimerCtl carries the methods of a *time.Timer that touch the clock:
// t.Stop() is rewritten to xb.TimerOf(t).Stop().
type TimerCtl struct{ e chanobj.TimerCtl }

// TimerOf returns the controls of t.
func TimerOf(t *time.Timer) TimerCtl { return TimerCtl{chanobj.TimerOf(t)} }

// Stop replaces (*time.Timer).Stop.
func (c TimerCtl) Stop() bool { return c.e.Stop() }

// Reset replaces (*time.Timer).Reset.
func (c TimerCtl) Reset(d time.Duration) bool { return c.e.Reset(d) }

// TickerCtl carries the methods of a *time.Ticker that touch the clock.
type TickerCtl struct{ e chanobj.TickerCtl }

// TickerOf returns the controls of t.
func TickerOf(t *time.Ticker) TickerCtl { return TickerCtl{chanobj.TickerOf(t)} }

// Stop replaces (*time.Ticker).Stop.
func (c TickerCtl) Stop() { c.e.Stop() }

// Reset replaces (*time.Ticker).Reset.
func (c TickerCtl) Reset(d time.Duration) { c.e.Reset(d) }

// TimerStop replaces the method expression (*time.Timer).Stop.
func TimerStop(t *time.Timer) bool { return chanobj.TimerStop(t) }

// TimerReset replaces the method expression (*time.Timer).Reset.
func TimerReset(t *time.Timer, d time.Duration) bool { return chanobj.TimerReset(t, d) }

// TickerStop replaces the method expression (*time.Ticker).Stop.
func TickerStop(t *time.Ticker) { chanobj.TickerStop(t) }

// TickerReset replaces the method expression (*time.Ticker).Reset.
func TickerReset(t *time.Ticker, d time.Duration) { chanobj.TickerReset(t, d) }

// ContextWithCancel replaces context.WithCancel.
func ContextWithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	return chanobj.ContextWithCancel(parent)
}

// ContextWithCancelCause replaces context.WithCancelCause.
func ContextWithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	return chanobj.ContextWithCancelCause(parent)
}

// ContextWithDeadline replaces context.WithDeadline.
func ContextWithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return chanobj.ContextWithDeadline(parent, d)
}

// ContextWithTimeout replaces context.WithTimeout.
func ContextWithTimeout(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return chanobj.ContextWithTimeout(parent, timeout)
}

// ContextWithTimeoutCause replaces context.WithTimeoutCause.
func ContextWithTimeoutCause(parent context.Context, timeout time.Duration, cause error) (context.Context, context.CancelFunc) {
	return chanobj.ContextWithTimeoutCause(parent, timeout, cause)
}

// ContextWithDeadlineCause replaces context.WithDeadlineCause.
func ContextWithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	return chanobj.ContextWithDeadlineCause(parent, d, cause)
}

// ContextCause replaces context.Cause.
func ContextCause(ctx context.Context) error { return chanobj.ContextCause(ctx) }

// ContextAfterFunc replaces context.AfterFunc: when ctx is cancelled, f
// starts on a new goroutine, a child of the caller.
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	return chanobj.ContextAfterFunc(ctx, f)
}
