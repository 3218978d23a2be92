// Package hb holds the shapes of real code whose orderings are built on
// other synchronization than a lock around the data: hand-overs through a
// mutex, a semaphore, singleflight, sync.Map, sync.Pool, buffered channels
// and atomics. xbtest must report exactly the data races the Go memory
// model defines on them: none where happens-before orders the accesses
// (the real libraries these come from pass `go test -race`), and each one
// where it does not. See README.md.
package hb

import (
	"container/list"
	"context"
	"sync"
)

// Weighted is a weighted semaphore built like golang.org/x/sync/semaphore:
// a mutex around the count and a FIFO of waiters, each woken by closing its
// channel.
type Weighted struct {
	size    int64
	cur     int64
	mu      sync.Mutex
	waiters list.List
}

type waiter struct {
	n     int64
	ready chan struct{}
}

// NewWeighted returns a semaphore of the given weight.
func NewWeighted(n int64) *Weighted { return &Weighted{size: n} }

// Acquire takes n, waiting until it is free or ctx is done.
func (s *Weighted) Acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	if s.size-s.cur >= n && s.waiters.Len() == 0 {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	elem := s.waiters.PushBack(waiter{n: n, ready: ready})
	s.mu.Unlock()
	select {
	case <-ctx.Done():
		s.mu.Lock()
		select {
		case <-ready:
			s.cur -= n
			s.notifyWaiters()
		default:
			s.waiters.Remove(elem)
		}
		s.mu.Unlock()
		return ctx.Err()
	case <-ready:
		return nil
	}
}

// Release gives n back.
func (s *Weighted) Release(n int64) {
	s.mu.Lock()
	s.cur -= n
	if s.cur < 0 {
		s.mu.Unlock()
		panic("semaphore: released more than held")
	}
	s.notifyWaiters()
	s.mu.Unlock()
}

func (s *Weighted) notifyWaiters() {
	for {
		next := s.waiters.Front()
		if next == nil {
			break
		}
		w := next.Value.(waiter)
		if s.size-s.cur < w.n {
			break
		}
		s.cur += w.n
		s.waiters.Remove(next)
		close(w.ready)
	}
}

// Group is golang.org/x/sync/singleflight's Group in small: concurrent
// calls with one key share one execution, and count the duplicates.
type Group struct {
	mu sync.Mutex
	m  map[string]*call
}

type call struct {
	wg   sync.WaitGroup
	val  int
	dups int
}

// Do runs fn once for all concurrent callers with the same key; shared
// reports whether other callers got the same result.
func (g *Group) Do(key string, fn func() int) (v int, shared bool) {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string]*call{}
	}
	if c, ok := g.m[key]; ok {
		c.dups++ // written under g.mu
		g.mu.Unlock()
		c.wg.Wait()
		return c.val, true
	}
	c := new(call)
	c.wg.Add(1)
	g.m[key] = c
	g.mu.Unlock()

	c.val = fn()
	c.wg.Done()

	g.mu.Lock()
	delete(g.m, key)
	g.mu.Unlock()
	// Read outside the lock, after the call left the map under it: every
	// dups++ happened before that (under the same lock) or never happens.
	return c.val, c.dups > 0
}

// Registry hands a map it has built over to whoever takes it, under a
// mutex; the taker ranges over it without the lock.
type Registry struct {
	mu      sync.Mutex
	pending map[string]int
}

// Publish hands a filled map over.
func (r *Registry) Publish(m map[string]int) {
	r.mu.Lock()
	r.pending = m
	r.mu.Unlock()
}

// Take returns the map handed over, if any, and forgets it.
func (r *Registry) Take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.pending
	r.pending = nil
	return m
}

// Account is read under one lock and written under another: the bug of a
// field moved from one lock's care to another's.
type Account struct {
	readMu, writeMu sync.Mutex
	balance         int
}

// Balance reads under readMu.
func (a *Account) Balance() int {
	a.readMu.Lock()
	defer a.readMu.Unlock()
	return a.balance
}

// Deposit writes under writeMu.
func (a *Account) Deposit(n int) {
	a.writeMu.Lock()
	a.balance += n
	a.writeMu.Unlock()
}

// Item is data handed over through sync.Map, sync.Pool or channels.
type Item struct {
	ID    int
	Words []string
}
