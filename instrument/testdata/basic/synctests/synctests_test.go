package synctests

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestSynctestSleep: a goroutine of the bubble sleeps an hour of virtual
// time; the test sees the hour pass, at 2000-01-01 as in Go. Test waits for
// the goroutines the cleanup releases, which have exited when Test returns
// (no race on exited and exited2: Test's return is after every member's
// end, not only the last's).
func TestSynctestSleep(t *testing.T) {
	var slept time.Duration
	exited, exited2 := false, false
	synctest.Test(t, func(t *testing.T) {
		if y := time.Now().Year(); y != 2000 {
			t.Errorf("time in the bubble is %v", time.Now())
		}
		out := make(chan time.Duration)
		go Worker(time.Hour, out)
		slept = <-out
		stop := make(chan struct{})
		go func() {
			<-stop
			exited = true
		}()
		go func() {
			<-stop
			exited2 = true
		}()
		t.Cleanup(func() { close(stop) })
	})
	if slept != time.Hour {
		t.Errorf("the worker slept %v", slept)
	}
	if !exited || !exited2 {
		t.Errorf("synctest.Test returned before its goroutines exited")
	}
}

// TestSynctestWait: Wait returns once the other goroutines are blocked
// (no race on what either wrote before blocking), and
// before time moves: a goroutine asleep for a millisecond (a timer that
// may fire eagerly outside a bubble) has not woken.
func TestSynctestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		state, woke, other := 0, false, 0
		go func() {
			other = 1
			<-ch
		}()
		go func() {
			state = 1
			<-ch
			state = 2
			time.Sleep(time.Millisecond)
			woke = true
		}()
		synctest.Wait()
		if state != 1 || other != 1 {
			t.Errorf("after the first Wait state is %d and other %d, want 1 and 1", state, other)
		}
		start := time.Now()
		ch <- 0
		ch <- 0
		synctest.Wait()
		if state != 2 || time.Since(start) != 0 {
			t.Errorf("after the second Wait state is %d at +%v, want 2 at +0", state, time.Since(start))
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !woke {
			t.Errorf("after the sleep the goroutine has not woken")
		}
	})
}

// TestSynctestWaitOutside: Wait outside a bubble panics, as in Go.
func TestSynctestWaitOutside(t *testing.T) {
	defer func() {
		if p, _ := recover().(string); !strings.Contains(p, "not in a bubble") {
			t.Errorf("Wait outside a bubble: recovered %q", p)
		}
	}()
	synctest.Wait()
}

// TestSynctestDeadlock: a goroutine of the bubble blocks forever, so Test
// never returns: a deadlock (Go: "deadlock: main bubble goroutine has
// exited but blocked goroutines remain").
func TestSynctestDeadlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		go func() { ch <- 1 }()
	})
}

// TestSynctestTimeStops: once the bubble's root goroutine has exited, time
// no longer advances in the bubble: a goroutine still asleep is
// deadlocked, as in Go.
func TestSynctestTimeStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go time.Sleep(time.Second)
	})
}
