// Package counter has counters, correct and not.
package counter

import (
	"sync"
	"sync/atomic"
)

// Locked is a correct counter: an embedded mutex guards n.
type Locked struct {
	sync.Mutex
	n int
}

// Inc increments the counter under its lock (promoted Lock/Unlock).
func (c *Locked) Inc() {
	c.Lock()
	defer c.Unlock()
	c.n++
}

// Value returns the count.
func (c *Locked) Value() int {
	c.Lock()
	defer c.Unlock()
	return c.n
}

// Racy loses updates: it loads and stores atomically, but not as one
// read-modify-write.
type Racy struct {
	n int64
}

// Inc increments the counter, badly.
func (c *Racy) Inc() {
	v := atomic.LoadInt64(&c.n)
	atomic.StoreInt64(&c.n, v+1)
}

// Value returns the count.
func (c *Racy) Value() int64 { return atomic.LoadInt64(&c.n) }

// total is a package-level counter guarded by mu.
var (
	mu    sync.Mutex
	total int
)

// Add adds to total.
func Add(d int) {
	mu.Lock()
	total += d
	mu.Unlock()
}

// Total returns total.
func Total() int {
	mu.Lock()
	defer mu.Unlock()
	return total
}
