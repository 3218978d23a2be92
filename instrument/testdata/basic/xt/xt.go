// Package xt is tested from inside and outside.
package xt

import "sync"

// Counter counts.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc increments.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// N returns the count.
func (c *Counter) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
