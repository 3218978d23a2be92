package storebuf

import "github.com/xbtest/xbtest/settings"

// The fences weaker than MFENCE and the relaxed CAS (see the package doc,
// "Fences"); the engine's fences.go has the hooks.

// ReleaseFence is a release fence of g: under PSO the stores g buffered
// so far commit before its next store.
func (c *Buffers) ReleaseFence(g *Goroutine) {
	if c.mem == settings.PSO && g.Pending != 0 {
		g.release = true
	}
}

// releaseBefore is the drain of a release fence, at the first store after
// it (Store), after a block boundary as a fence has.
func (c *Buffers) releaseBefore(g *Goroutine) {
	g.release = false
	if g.Pending != 0 {
		c.host.Yield(g.Idx)
		c.Drain(g)
	}
}

// BufferedAt reports whether g has a buffered store overlapping
// [addr, addr+size).
func BufferedAt(g *Goroutine, addr, size uintptr) bool {
	for _, b := range g.bufs {
		if b.overlaps(addr, size) {
			return true
		}
	}
	return false
}

func (b *Buf) overlaps(addr, size uintptr) bool {
	for j := b.head; j < len(b.q); j++ {
		a, s := b.q[j].At()
		if addr < a+s && a < addr+size {
			return true
		}
	}
	return false
}

// DrainAt commits, in order, every buffer of g that holds a store
// overlapping [addr, addr+size) (under PSO: the FIFO of that address),
// inside g's current block, as Drain does for all of them (a relaxed CAS).
func (c *Buffers) DrainAt(g *Goroutine, addr, size uintptr) {
	for _, b := range g.bufs {
		if b.overlaps(addr, size) {
			c.drainBuf(b)
		}
	}
}
