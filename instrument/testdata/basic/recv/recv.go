// Package recv calls methods on struct fields. Taking a field's address
// to call a pointer method is no memory access of the field (Go's race
// detector does not instrument it); a value method copies the field, a
// read.
package recv

import (
	"fmt"
	"sync"
)

// Counter counts under its own lock.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc is a pointer method of a rewritten package.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// locked is a named struct type that embeds a mutex.
type locked struct {
	sync.Mutex
	n int
}

// V is a value with a value method.
type V struct{ a, b int }

func (v V) String() string { return fmt.Sprint(v.a, v.b) }

// Server has a mutex in every form.
type Server struct {
	mu          sync.Mutex
	coalescedMu struct {
		sync.Mutex
		n int
	}
	named   locked
	counter Counter
	v       V
	count   int
}

// Plain locks a sync.Mutex field.
func (s *Server) Plain() {
	s.mu.Lock() // PLAIN
	s.count++
	s.mu.Unlock()
}

// Coalesced locks the mutex embedded in a field of an anonymous struct type.
func (s *Server) Coalesced() {
	s.coalescedMu.Lock() // COALESCED
	s.coalescedMu.n++
	s.coalescedMu.Unlock()
}

// Named locks the mutex embedded in a field of a named struct type.
func (s *Server) Named() {
	s.named.Lock() // NAMED
	s.named.n++
	s.named.Unlock()
}

// Count calls a pointer method on a field.
func (s *Server) Count() {
	s.counter.Inc() // COUNTER
}

// Show calls a value method on a field: it reads the field.
func (s *Server) Show() string {
	return s.v.String() // VALUE
}

// Set writes the field Show reads.
func (s *Server) Set(a int) {
	s.v = V{a, a}
}
