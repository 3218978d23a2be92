// Package notests has no tests; the others use it.
package notests

import "sync"

// Flag is a flag set once.
type Flag struct {
	mu  sync.Mutex
	set bool
}

// Set sets the flag and reports whether it was already set.
func (f *Flag) Set() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.set
	f.set = true
	return was
}
