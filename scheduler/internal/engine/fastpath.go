package engine

import "sync/atomic"

// The fast paths package scheduler inlines itself: where a forwarder would
// cost the inliner more than the hook it forwards to, and the hook is hot.

// Hot is set while the active execution has a second goroutine; until
// then the memory hooks have nothing to do (see Read).
var Hot *atomic.Bool = &hot

// LoadHot is Load once Hot.
//
//go:noinline
func LoadHot[T any](p *T, pos Pos) T { return load(p, pos) }
