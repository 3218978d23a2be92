package clock

import (
	"context"
	"testing"
	"time"
)

// TestClockForms runs on the virtual clock only if every form below is
// rewritten: the real Stop of a timer the scheduler made panics.
func TestClockForms(t *testing.T) {
	now := time.Now // a function value
	start := now()
	if start.Year() != 2000 {
		t.Errorf("time.Now through a function value reads %v, not the virtual clock", start)
	}
	d := Deadline{time.NewTimer(time.Hour)}
	if !d.Stop() {
		t.Errorf("the promoted Stop of a pending timer = false")
	}
	d.Reset(time.Minute)
	<-d.C // at 1m
	h := Holder{time.NewTimer(time.Second)}
	if !h.Stop() {
		t.Errorf("Stop through a method value = false")
	}
	reset := (*time.Timer).Reset // a method expression
	if reset(h.T, time.Second) {
		t.Errorf("Reset of a stopped timer = true")
	}
	<-h.T.C // at 1m1s
	p := Poller{Ticker: time.NewTicker(time.Second)}
	<-p.C // at 1m2s
	p.Reset(2 * time.Second)
	<-p.C // at 1m4s
	(*time.Ticker).Stop(p.Ticker)
	if got := time.Since(start); got != time.Minute+4*time.Second {
		t.Errorf("%v of virtual time went by, want 1m4s", got)
	}
}

// TestClockContext cancels a context at its virtual deadline while a
// goroutine waits on it.
func TestClockContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	done := make(chan error)
	go func() {
		<-ctx.Done()
		done <- ctx.Err()
	}()
	if err := <-done; err != context.DeadlineExceeded {
		t.Errorf("err %v", err)
	}
	if d, _ := ctx.Deadline(); time.Until(d) != 0 {
		t.Errorf("the deadline is %v away after it passed", time.Until(d))
	}
}
