package storebuf

import (
	"unsafe"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// Host is what the store buffers need of the execution that runs them.
// Goroutines are named by their thread index.
type Host interface {
	// UnfencedEvent counts a scheduling event of goroutine g that does
	// not drain its buffers (the event of the fence itself).
	UnfencedEvent(g int32)
	// Point is a scheduling point of g: a block boundary, or a point the
	// explorer passes (pass). Access reports that the point starts a
	// shared access (access granularity; the engine's brute.go).
	Point(g int32, pass, access bool)
	// Yield ends g's block (a scheduling point that is always a boundary).
	Yield(g int32)
	// WakeFlusher makes b's flush pseudo-thread runnable (b has just
	// become non-empty), creating it on first use (b.Flusher); each of its
	// blocks calls Flush. StopFlusher makes it wait (b was drained).
	WakeFlusher(b *Buf)
	StopFlusher(b *Buf)
	// Committed tells the explorer that a flush or a drain wrote
	// [addr, addr+size) in the current block.
	Committed(addr, size uintptr)
	// Buffered and Drained are for the trace: g's store at pos entered a
	// buffer; a fence of b's goroutine commits b's oldest entry.
	Buffered(g int32, pos uint32)
	Drained(b *Buf)
	// Region names the region of memory addr lies in across executions
	// (sched.RegionUnknown: it has no name).
	Region(addr uintptr) (kind sched.RegionKind, key sched.HeapKey, base uintptr)
}

// Buffers is the store buffers of one execution.
type Buffers struct {
	host Host
	mem  settings.Memory
	// passes is the exploration's, when it runs passes (passesOn), and
	// reduce whether races are learnt (reduceByRaces).
	passes *Passes
	reduce bool
}

// Reset prepares c for a new execution under mem; passes is what the
// exploration learnt (nil: it runs no passes, see PassesOn).
func (c *Buffers) Reset(host Host, mem settings.Memory, passes *Passes, race eraser.Mode) {
	c.host, c.mem, c.passes, c.reduce = host, mem, passes, race == eraser.HB
}

// Goroutine is a goroutine's buffers (a field of the engine's thread).
type Goroutine struct {
	Idx     int32 // the goroutine's thread index
	bufs    []*Buf
	Pending int  // the stores buffered
	release bool // a release fence waits for the goroutine's next store (ReleaseFence)
	// Since its last block boundary: the access points it passed, and
	// whether it made an access that is a boundary (passes.go).
	quiet      int32
	racyAccess bool
}

// Reused returns an empty Goroutine that reuses g's memory.
func (g *Goroutine) Reused() Goroutine { return Goroutine{bufs: g.bufs[:0]} }

// Boundary is told that g's block ended (a point not passed).
func (g *Goroutine) Boundary() { g.quiet, g.racyAccess = 0, false }

// Bufs are g's buffers, oldest first.
func (g *Goroutine) Bufs() []*Buf { return g.bufs }

// Buf is one FIFO of buffered stores: a goroutine's (TSO), or a
// goroutine's for one address (PSO).
type Buf struct {
	owner   *Goroutine
	Flusher int32 // the flush pseudo-thread's index, -1 before it exists
	addr    uintptr
	q       []Entry
	head    int
	Flushed uint32 // the store the flusher committed last: its block's anchor
}

// Owner is the index of the goroutine whose stores b holds.
func (b *Buf) Owner() int32 { return b.owner.Idx }

// Len is the number of stores b holds.
func (b *Buf) Len() int { return len(b.q) - b.head }

// Entries are the stores b holds, oldest first.
func (b *Buf) Entries() []Entry { return b.q[b.head:] }

// Entry is one buffered store.
type Entry interface {
	At() (addr, size uintptr)
	Commit()
	Where() uint32 // the store's source position (an engine.Pos)
}

// Typed is a buffered store of a T: kept as a T, so that the garbage
// collector sees the pointers it holds.
type Typed[T any] struct {
	P   *T
	V   T
	Pos uint32
}

func (e *Typed[T]) At() (uintptr, uintptr) {
	return uintptr(unsafe.Pointer(e.P)), unsafe.Sizeof(e.V)
}
func (e *Typed[T]) Commit()       { *e.P = e.V }
func (e *Typed[T]) Where() uint32 { return e.Pos }

// Value is the value stored, for the trace.
func (e *Typed[T]) Value() any { return e.V }

// A Forwarding is what a load finds in its goroutine's buffers.
type Forwarding uint8

const (
	Memory    Forwarding = iota // nothing buffered there: read memory
	Forwarded                   // the newest buffered store of the same shape
	Overlaps                    // an overlapping store of another shape: drain, then read memory
)

// Forward looks for the value a load of [addr, addr+size) as a T by g
// reads from its buffers: the newest buffered store of g to that address
// and shape. A store of another shape that overlaps it is not forwarded
// in parts: the load drains and reads memory.
func Forward[T any](c *Buffers, g *Goroutine, addr, size uintptr) (v T, f Forwarding) {
	for i := len(g.bufs) - 1; i >= 0; i-- {
		b := g.bufs[i]
		if c.mem == settings.PSO && b.addr != addr {
			continue
		}
		for j := len(b.q) - 1; j >= b.head; j-- {
			a, s := b.q[j].At()
			if a == addr && s == size {
				if e, ok := b.q[j].(*Typed[T]); ok {
					return e.V, Forwarded
				}
			}
			if addr < a+s && a < addr+size {
				return v, Overlaps
			}
		}
	}
	if c.mem == settings.PSO && overlapsBuffered(g, addr, size) {
		return v, Overlaps
	}
	return v, Memory
}

// Store puts e, a store of g, into g's buffer. It is no block boundary:
// the store is invisible to other goroutines until its flush, which is an
// event of its own.
func (c *Buffers) Store(g *Goroutine, e Entry) {
	if g.release {
		c.releaseBefore(g)
	}
	addr, size := e.At()
	b := c.bufferFor(g, addr, size)
	b.q = append(b.q, e)
	g.Pending++
	c.host.Buffered(g.Idx, e.Where())
	if b.Len() == 1 {
		c.host.WakeFlusher(b)
	}
}

// bufferFor returns the buffer a store to [addr, addr+size) of g goes to.
func (c *Buffers) bufferFor(g *Goroutine, addr, size uintptr) *Buf {
	if c.mem == settings.TSO {
		if len(g.bufs) == 0 {
			g.bufs = append(g.bufs, &Buf{owner: g, Flusher: -1})
		}
		return g.bufs[0]
	}
	// Per-address FIFOs must not reorder stores to overlapping locations
	// at different addresses: fence first (stronger than PSO, never weaker).
	if overlapsBuffered(g, addr, size) {
		c.Drain(g)
	}
	for _, b := range g.bufs {
		if b.addr == addr {
			return b
		}
	}
	b := &Buf{owner: g, Flusher: -1, addr: addr}
	g.bufs = append(g.bufs, b)
	return b
}

// overlapsBuffered reports whether g has a buffered store that overlaps
// [addr, addr+size) at another address (PSO).
func overlapsBuffered(g *Goroutine, addr, size uintptr) bool {
	for _, b := range g.bufs {
		for j := b.head; j < len(b.q); j++ {
			a, s := b.q[j].At()
			if a != addr && addr < a+s && a < addr+size {
				return true
			}
		}
	}
	return false
}

// Flush is a block of b's flush pseudo-thread, after its event: it
// commits the oldest entry of b and reports whether b is now empty (the
// flusher then waits for the next store).
func (c *Buffers) Flush(b *Buf) (empty bool) {
	b.Flushed = b.q[b.head].Where()
	c.host.Committed(commitOldest(b))
	return b.Len() == 0
}

func commitOldest(b *Buf) (addr, size uintptr) {
	e := b.q[b.head]
	b.q[b.head] = nil
	b.head++
	if b.head == len(b.q) {
		b.q, b.head = b.q[:0], 0
	}
	b.owner.Pending--
	e.Commit()
	return e.At()
}

// Fence is the fence a synchronization operation of g with buffered
// stores performs before the operation itself: an event and a block
// boundary, so that flushes and other goroutines can run while the stores
// are still pending (without it a store directly followed by an
// operation, or by the goroutine's end, could never be seen out of
// order), then the drain.
func (c *Buffers) Fence(g *Goroutine) {
	c.host.UnfencedEvent(g.Idx)
	c.host.Point(g.Idx, c.fencePass(g), false)
	c.Drain(g)
}

// Drain commits every buffered store of g, in order, inside g's current
// block (a fence). The flushers of the drained buffers have nothing left
// to do: they stop being runnable, as if they had parked.
func (c *Buffers) Drain(g *Goroutine) {
	for _, b := range g.bufs {
		if b.Len() > 0 {
			c.drainBuf(b)
		}
	}
}

func (c *Buffers) drainBuf(b *Buf) {
	for b.Len() > 0 {
		c.host.Drained(b)
		c.host.Committed(commitOldest(b))
	}
	if b.Flusher >= 0 {
		c.host.StopFlusher(b)
	}
}
