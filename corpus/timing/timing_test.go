package timing

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// The buggy tests misbehave under plain go test (a leaked goroutine, a
// flaky assertion), so they run only under xbtest.
func corpus(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/timing)")
	}
}

// slow is work that takes two seconds.
func slow() int {
	time.Sleep(2 * time.Second)
	return 42
}

func TestTimeoutLeak(t *testing.T) {
	corpus(t)
	if _, err := Fetch(slow, time.Second); err != ErrTimeout {
		t.Errorf("Fetch = %v, want a timeout", err)
	}
}

func TestTimeoutFixed(t *testing.T) {
	corpus(t)
	if _, err := FetchFixed(slow, time.Second); err != ErrTimeout {
		t.Errorf("FetchFixed = %v, want a timeout", err)
	}
	if v, err := FetchFixed(slow, time.Minute); v != 42 || err != nil {
		t.Errorf("FetchFixed = %v, %v, want 42", v, err)
	}
}

func TestContextLeak(t *testing.T) {
	corpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if n := Consume(ctx, Generate, 20*time.Millisecond); n != 3 {
		t.Errorf("consumed %d values in 50ms at 20ms each, want 3", n)
	}
}

func TestContextFixed(t *testing.T) {
	corpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if n := Consume(ctx, GenerateFixed, 20*time.Millisecond); n != 3 {
		t.Errorf("consumed %d values in 50ms at 20ms each, want 3", n)
	}
}

func TestTickerStops(t *testing.T) {
	corpus(t)
	var mu sync.Mutex
	ready := false
	go func() {
		time.Sleep(250 * time.Millisecond)
		mu.Lock()
		ready = true
		mu.Unlock()
	}()
	start := time.Now()
	ok := Poll(100*time.Millisecond, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return ready
	}, nil)
	if took := time.Since(start); !ok || took != 300*time.Millisecond {
		t.Errorf("Poll = %v after %v, want true after the third tick (300ms)", ok, took)
	}
}

func TestRetryBackoff(t *testing.T) {
	corpus(t)
	var mu sync.Mutex
	up := false
	go func() {
		time.Sleep(250 * time.Millisecond)
		mu.Lock()
		up = true
		mu.Unlock()
	}()
	start := time.Now()
	tries := 0
	err := Retry(context.Background(), 5, 100*time.Millisecond, func() error {
		tries++
		mu.Lock()
		defer mu.Unlock()
		if !up {
			return errors.New("not up yet")
		}
		return nil
	})
	// Attempts at 0, 100ms and 300ms (after waiting 100 and 200): the
	// third finds the server up.
	if took := time.Since(start); err != nil || tries != 3 || took != 300*time.Millisecond {
		t.Errorf("Retry = %v after %d tries and %v, want success at the third, at 300ms", err, tries, took)
	}
}

func TestRetryGivesUpWithContext(t *testing.T) {
	corpus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	err := Retry(ctx, 10, 100*time.Millisecond, func() error { return errors.New("down") })
	if err != context.DeadlineExceeded {
		t.Errorf("Retry = %v, want the context's deadline", err)
	}
}

// load takes as long as the test waits for it.
func load() map[string]string {
	time.Sleep(10 * time.Millisecond)
	return map[string]string{"k": "v"}
}

func TestSleepOrdering(t *testing.T) {
	corpus(t)
	var c Cache
	c.Warm(load, nil)
	time.Sleep(10 * time.Millisecond) // "long enough": not a synchronization
	if got := c.Get("k"); got != "v" {
		t.Errorf("Get(k) = %q after the warm-up sleep, want v", got)
	}
}

func TestSleepOrderingFixed(t *testing.T) {
	corpus(t)
	var c Cache
	done := make(chan struct{})
	c.Warm(load, done)
	<-done
	if got := c.Get("k"); got != "v" {
		t.Errorf("Get(k) = %q after the warm-up, want v", got)
	}
}

// TestHeartbeatHour runs an hour of heartbeats (3600 ticks of the virtual
// clock, in milliseconds of real time). The test sleeps half a second past
// the hour so that the last beat and the stop do not race.
func TestHeartbeatHour(t *testing.T) {
	corpus(t)
	stop := make(chan struct{})
	beats := make(chan int)
	go Heartbeat(time.Second, stop, beats)
	time.Sleep(time.Hour + time.Second/2)
	close(stop)
	if n := <-beats; n != 3600 {
		t.Errorf("%d beats in an hour, want 3600", n)
	}
}

// TestEarlyTimeout closes done at once; a 1 ns grace can still pass before
// the goroutine sees it.
func TestEarlyTimeout(t *testing.T) {
	corpus(t)
	done, results := make(chan struct{}), make(chan int)
	Await(done, results, time.Nanosecond)
	close(done)
	<-results
}

func TestEarlyTimeoutFixed(t *testing.T) {
	corpus(t)
	done, results := make(chan struct{}), make(chan int)
	AwaitFixed(done, results, time.Nanosecond)
	close(done)
	<-results
}

// TestTickBeforeStop stops a reporter nobody reads, ticking every
// nanosecond: a tick may come before the stop.
func TestTickBeforeStop(t *testing.T) {
	corpus(t)
	StartReporter(time.Nanosecond, false).Stop()
}

func TestTickBeforeStopFixed(t *testing.T) {
	corpus(t)
	StartReporter(time.Nanosecond, true).Stop()
}
