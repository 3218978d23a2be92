// Package timing holds the shapes of Go code that sleeps, times out and
// cancels, for xbtest's virtual clock: see README.md.
package timing

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrTimeout is returned by Fetch when the work is slower than the timeout.
var ErrTimeout = errors.New("timeout")

// Fetch runs work on a goroutine and waits for its result at most timeout.
// The bug: the result channel is unbuffered, so a worker that finishes after
// the caller gave up blocks on its send forever (a leaked goroutine).
func Fetch(work func() int, timeout time.Duration) (int, error) {
	ch := make(chan int)
	go func() {
		ch <- work()
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(timeout):
		return 0, ErrTimeout
	}
}

// FetchFixed is Fetch with room for the late result.
func FetchFixed(work func() int, timeout time.Duration) (int, error) {
	ch := make(chan int, 1)
	go func() {
		ch <- work()
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(timeout):
		return 0, ErrTimeout
	}
}

// Generate sends 0, 1, 2... until ctx is cancelled. The bug: the send does
// not watch ctx.Done(), so once the consumer stops receiving the producer
// blocks forever.
func Generate(ctx context.Context) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; ctx.Err() == nil; i++ {
			ch <- i
		}
	}()
	return ch
}

// GenerateFixed gives up its send when ctx is cancelled.
func GenerateFixed(ctx context.Context) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; ; i++ {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// Consume receives from gen's channel, taking per to handle each value,
// until ctx is done, and returns how many it handled. It looks at ctx first:
// a select that finds both ready may take either, so without the first
// select a consumer could go on forever (xbtest explores that schedule).
func Consume(ctx context.Context, gen func(context.Context) <-chan int, per time.Duration) int {
	ch := gen(ctx)
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n
		default:
		}
		select {
		case <-ch:
			time.Sleep(per)
			n++
		case <-ctx.Done():
			return n
		}
	}
}

// Poll calls check every interval until it reports true or stop is closed.
// It stops its ticker on the way out.
func Poll(interval time.Duration, check func() bool, stop <-chan struct{}) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if check() {
				return true
			}
		case <-stop:
			return false
		}
	}
}

// Retry calls op up to attempts times, waiting base, 2*base, 4*base...
// between failures, and gives up early when ctx is done.
func Retry(ctx context.Context, attempts int, base time.Duration, op func() error) error {
	delay := base
	for i := 0; ; i++ {
		err := op()
		if err == nil || i == attempts-1 {
			return err
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		delay *= 2
	}
}

// Cache is filled in the background by Warm.
type Cache struct {
	mu sync.Mutex
	m  map[string]string
}

// Warm loads the cache on a goroutine; done, if not nil, is closed once it
// is loaded.
func (c *Cache) Warm(load func() map[string]string, done chan<- struct{}) {
	go func() {
		m := load()
		c.mu.Lock()
		c.m = m
		c.mu.Unlock()
		if done != nil {
			close(done)
		}
	}()
}

// Get returns the value of k, "" if the cache has none (yet).
func (c *Cache) Get(k string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

// Heartbeat counts a beat every interval until stop is closed, then stops
// its ticker and sends the count on beats.
func Heartbeat(interval time.Duration, stop <-chan struct{}, beats chan<- int) {
	t := time.NewTicker(interval)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-t.C:
			n++
		case <-stop:
			beats <- n
			return
		}
	}
}
