package xbtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inOrder (-p) runs packages at once and reports them in order: run 0
// waits for run 1 to have started and ended, so run 1's calls come in
// before run 0's last one, and are made after run 0's done; run 2 starts
// only when a slot is free. Run 1 waits for run 0 to have started, or it
// could run from start to end before run 0's goroutine is scheduled (on
// a loaded machine it did).
func TestInOrderRunsAtOnceAndReportsInOrder(t *testing.T) {
	var calls []string
	started0, started1, ended1 := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var running, most atomic.Int32
	wait := func(c chan struct{}, what string) {
		select {
		case <-c:
		case <-time.After(time.Minute):
			t.Errorf("%s: not while run 0 ran", what)
		}
	}
	all := inOrder(context.Background(), 3, 2, func(i int, send func(func())) {
		now := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		note := func(s string) { send(func() { calls = append(calls, s) }) }
		switch i {
		case 0:
			close(started0)
			wait(started1, "run 1 started")
			note("0a")
			wait(ended1, "run 1 ended")
			note("0b")
		case 1:
			wait(started0, "run 0 started")
			close(started1)
			note("1a")
			note("1b")
			close(ended1)
		case 2:
			note("2a")
		}
	}, func(i int) bool {
		calls = append(calls, fmt.Sprintf("done %d", i))
		return false
	})
	want := []string{"0a", "0b", "done 0", "1a", "1b", "done 1", "2a", "done 2"}
	if !all || !slices.Equal(calls, want) {
		t.Errorf("all %v, calls %q; want %q", all, calls, want)
	}
	if most.Load() != 2 {
		t.Errorf("at most %d runs at once, want 2", most.Load())
	}
}

// A done that says stop ends the reports: the later runs' calls are not
// made; none starts once the context is done.
func TestInOrderStops(t *testing.T) {
	var calls []string
	all := inOrder(context.Background(), 3, 1, func(i int, send func(func())) {
		send(func() { calls = append(calls, fmt.Sprint(i)) })
	}, func(i int) bool { return i == 1 })
	if all || !slices.Equal(calls, []string{"0", "1"}) {
		t.Errorf("stop after 1: all %v, calls %q", all, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var ran []int
	all = inOrder(ctx, 3, 1, func(i int, send func(func())) {
		mu.Lock()
		ran = append(ran, i)
		mu.Unlock()
		cancel()
	}, func(int) bool { return false })
	if all || !slices.Equal(ran, []int{0}) {
		t.Errorf("cancelled in run 0: all %v, ran %v", all, ran)
	}
}
