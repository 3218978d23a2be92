// Package syncs uses the sync and sync/atomic packages.
package syncs

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Config is loaded once.
type Config struct {
	once  sync.Once
	loads atomic.Int32
	value string
}

// Get loads the configuration on first use.
func (c *Config) Get() string {
	c.once.Do(func() {
		c.loads.Add(1)
		c.value = "loaded"
	})
	return c.value
}

// Queue is a one-slot queue built on a sync.Cond.
type Queue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	item  int
	full  bool
	count int64
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Put waits for the slot to be free and fills it.
func (q *Queue) Put(v int) {
	q.mu.Lock()
	for q.full {
		q.cond.Wait()
	}
	q.item, q.full = v, true
	q.cond.Broadcast()
	q.mu.Unlock()
	runtime.Gosched()
	atomic.AddInt64(&q.count, 1)
}

// Get waits for an item.
func (q *Queue) Get() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.full {
		q.cond.Wait()
	}
	q.full = false
	q.cond.Broadcast()
	return q.item
}

// Registry maps names with a read-mostly lock.
type Registry struct {
	mu sync.RWMutex
	m  map[string]int
}

// Set sets a name.
func (r *Registry) Set(k string, v int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[string]int)
	}
	r.m[k] = v
}

// Lookup reads a name.
func (r *Registry) Lookup(k string) (int, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[k]
	return v, ok
}

// Stats uses the typed atomics and a CAS loop.
type Stats struct {
	max   atomic.Int64
	last  atomic.Pointer[string]
	ok    atomic.Bool
	value atomic.Value
	hits  uint32
}

// Observe records a value.
func (s *Stats) Observe(v int64, name string) {
	for {
		m := s.max.Load()
		if v <= m || s.max.CompareAndSwap(m, v) {
			break
		}
	}
	s.last.Store(&name)
	s.ok.Store(true)
	s.value.Store(name)
	atomic.AddUint32(&s.hits, 1)
}

// Max returns the largest value observed.
func (s *Stats) Max() int64 { return s.max.Load() }

// Hits returns the number of observations.
func (s *Stats) Hits() uint32 { return atomic.LoadUint32(&s.hits) }

var pool = sync.Pool{New: func() any { return new([]byte) }}

// Buffer borrows a buffer from a pool.
func Buffer() *[]byte {
	b := pool.Get().(*[]byte)
	pool.Put(b)
	return b
}

// Counts counts keys in a sync.Map.
type Counts struct{ m sync.Map }

// Count counts a key.
func (c *Counts) Count(k string) {
	v, _ := c.m.LoadOrStore(k, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// CountOf returns a key's count.
func (c *Counts) CountOf(k string) int64 {
	v, ok := c.m.Load(k)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

var initOnce = sync.OnceValue(func() int { return 42 })

// Answer is computed once.
func Answer() int { return initOnce() }

// Quit ends a goroutine with runtime.Goexit, running its deferred calls;
// the function made by sync.OnceFunc runs once.
func Quit() int {
	n := 0
	inc := sync.OnceFunc(func() { n++ })
	done := make(chan bool)
	go func() {
		defer close(done)
		inc()
		runtime.Goexit()
		n = 100
	}()
	<-done
	inc()
	return n
}
