// Package races holds the Go shapes of the locking-discipline violations
// xbtest's race detection must find (and their correct versions, which it
// must not flag). See README.md.
package races

import (
	"sync"
	"sync/atomic"
)

// Cache is a map guarded by a mutex, except that Peek forgets to take it.
type Cache struct {
	mu sync.Mutex
	m  map[string]int
}

func NewCache() *Cache { return &Cache{m: map[string]int{}} }

func (c *Cache) Set(k string, v int) {
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
}

// Get reads under the lock.
func (c *Cache) Get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

// Peek is the bug: a map read without the lock.
func (c *Cache) Peek(k string) int { return c.m[k] }

// Config is something expensive to build once.
type Config struct{ Workers int }

// Lazy builds its Config on first use with double-checked locking: the
// unlocked first check races with the locked write.
type Lazy struct {
	mu  sync.Mutex
	cfg *Config
}

func (l *Lazy) Get() *Config {
	if l.cfg == nil { // the bug: read without the lock
		l.mu.Lock()
		if l.cfg == nil {
			l.cfg = &Config{Workers: 4}
		}
		l.mu.Unlock()
	}
	return l.cfg
}

// OnceLazy is the correct version: sync.Once orders the write before every
// return of Do.
type OnceLazy struct {
	once sync.Once
	cfg  *Config
}

func (l *OnceLazy) Get() *Config {
	l.once.Do(func() { l.cfg = &Config{Workers: 4} })
	return l.cfg
}

// Batch is filled by a producer and handed over a channel: whoever holds
// it owns it, no lock needed.
type Batch struct {
	Items []int
	Sum   int
}

// Pipeline produces n batches and sums them in a consumer goroutine; the
// producer never touches a batch after sending it. Producer and consumer
// both write Sum without a lock: pure Eraser reports that (a false
// positive), happens-before sees the channel order the writes.
func Pipeline(n int) int {
	work := make(chan *Batch)
	done := make(chan *Batch)
	go func() {
		for b := range work {
			for _, v := range b.Items {
				b.Sum += v
			}
			done <- b
		}
		close(done)
	}()
	go func() {
		for i := range n {
			b := &Batch{Items: []int{i, i + 1, i + 2}}
			b.Sum = 100 * i // a base the consumer adds to
			work <- b
		}
		close(work)
	}()
	total := 0
	for b := range done {
		total += b.Sum
	}
	return total
}

// Stats counts hits under a RWMutex. Hit takes the read lock to write the
// counter: two readers hold it at once.
type Stats struct {
	mu   sync.RWMutex
	hits int
}

func (s *Stats) Hit() {
	s.mu.RLock()
	s.hits++ // the bug: a write under a read lock
	s.mu.RUnlock()
}

// HitLocked is the correct version.
func (s *Stats) HitLocked() {
	s.mu.Lock()
	s.hits++
	s.mu.Unlock()
}

func (s *Stats) Hits() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hits
}

// Counter is counted atomically by Inc, but Reset writes it plainly.
type Counter struct{ n int64 }

func (c *Counter) Inc()         { atomic.AddInt64(&c.n, 1) }
func (c *Counter) Load() int64  { return atomic.LoadInt64(&c.n) }
func (c *Counter) Reset()       { c.n = 0 } // the bug: a plain write
func (c *Counter) ResetAtomic() { atomic.StoreInt64(&c.n, 0) }
