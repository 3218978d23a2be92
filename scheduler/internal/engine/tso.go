package engine

import (
	"unsafe"

	"github.com/xbtest/xbtest/settings"
)

// Store buffers: the x86-TSO abstract machine of Owens, Sarkar and Sewell
// ("A better x86 memory model: x86-TSO", TPHOLs 2009; "x86-TSO: a rigorous
// and usable programmer's model for x86 multiprocessors", CACM 2010) and
// SPARC PSO.
//
//   - TSO: every goroutine has one FIFO store buffer. Store puts the value
//     in it; Load returns the newest buffered store of the goroutine to the
//     same address, else memory.
//   - PSO: a FIFO per goroutine and address, so stores to different
//     addresses may reach memory out of order; forwarding is the same.
//   - Committing the oldest entry of a buffer to memory is a scheduling
//     event of its own: every non-empty buffer has a flush pseudo-thread (a
//     controlled goroutine that commits one entry per block) that the
//     explorer chooses like any thread. Decisions are therefore the usual
//     (thread, end event) pairs and replay needs nothing new: a flush is a
//     block of the buffer's thread.
//   - Every synchronization operation of a goroutine (sync/atomic, Mutex,
//     RWMutex, Cond, channels, select, WaitGroup, Once, sync.Map, go
//     statements, its exit) drains its buffers first, inside its block: x86
//     implements them with LOCK'd instructions or MFENCE. The exception is
//     atomic loads: Go compiles them to a plain MOV on amd64, which does not
//     wait for the buffer, so a real machine can run an atomic load before
//     an earlier plain store is visible; xbtest drains there too (every
//     sync/atomic operation is a fence in its model) and does not explore
//     that reordering (for a plain store followed by an atomic load of
//     another variable: fewer behaviours than the hardware, never more).
//   - Accesses reported without their value (Read/Write: maps, the stores
//     of a tuple assignment the rewriter cannot split into temporaries,
//     x op= f() through a pointer, code compiled without the
//     value-carrying helpers) drain first and go to memory: they behave as
//     if fenced (fewer behaviours than the hardware, never more). Code
//     xbtest does not rewrite (the standard library) is not buffered at all;
//     a call into it that passes memory drains the caller's buffers first
//     (foreign.go), so that it sees the caller's stores and its own stores
//     do not overtake them.
//   - A buffered value is kept as a T in a typed entry, so the garbage
//     collector sees the pointers it holds.
//
// ExitBlock-RW stays sound with flushes. Its argument (thesis 2.4) is that
// if the block B a thread ran from a branch point touches nothing that the
// blocks the other threads run after that point touch, then B run after
// them reads the same values and leaves the same state as B run first, and
// they behave the same in either order: every such order is equivalent to
// one explored from the branch where B ran first. So in the branch where
// the others run first the thread stays delayed until a block touches B's
// reads and writes. That needs, of any two blocks whose recorded sets are
// disjoint, that they commute and that neither enables or disables the
// other. For the blocks of this machine:
//
//   - a flush block commits the head of its buffer to memory and is
//     recorded as a write of that address. It is the only way a buffered
//     store becomes visible to another goroutine, so a thread delayed after
//     reading the address (a load, from memory or its own buffer) is
//     re-enabled by the flush, and a delayed flusher by any block that reads
//     or writes the address it committed (a load, another goroutine's
//     flush of the same address, a drain);
//   - a load is recorded as a read of its address whether it is served from
//     memory or forwarded from the own buffer. A forwarded load commutes
//     with the flush of its own entry when the two are adjacent, but not
//     with what that flush lets happen next: after it, another goroutine's
//     store to the address can commit, and the load, run later, returns
//     that value, which no order with the load first gives. Recorded as a
//     read, it is re-enabled by the first of those flushes;
//   - a buffered store is recorded as nothing: it appends to its own
//     buffer, which only its own loads (recorded) and its own flusher read.
//     Appending commutes with committing the head (a flusher is enabled
//     only while its buffer is non-empty, so the head it commits is the same
//     in either order). A store to an empty buffer enables the flusher, a
//     wake-up as in a notify: in an order where the store comes later the
//     flusher was not enabled before it, so none of its blocks is among the
//     blocks the store is moved past;
//   - a drain (a fence) commits entries inside the fencing goroutine's block
//     and is recorded as writes of their addresses; the drained buffer's
//     flusher leaves the enabled and delayed sets in that block (it has
//     nothing left to commit), as a thread that parks would. The drain
//     disables the flusher, and both write the address of the head entry:
//     the dependence is recorded both ways.
//
// Pruning therefore only skips orders equivalent to explored ones: no
// outcome the model allows is lost. scheduler/litmus_test.go checks the
// outcome sets against a direct search of the abstract machines and, for
// the two-goroutine tests, exhaustive enumeration of every order of blocks;
// without the write recorded for a flush, SB, SB+rfi-pos, MP (pso), 2+2W,
// R, S (pso) and n6 lose allowed outcomes; without the writes of a drain,
// SB+mfences, MP+mfence, 2+2W, R and S; without the read of a forwarded
// load, n6.

// storeBuf is one FIFO of buffered stores: a goroutine's (TSO), or a
// goroutine's for one address (PSO).
type storeBuf struct {
	owner   *thread
	flusher *thread
	addr    uintptr // PSO: the address of the FIFO
	q       []bufEntry
	head    int
	flushed Pos // the store the flusher committed last: its block's anchor
}

func (b *storeBuf) name() string {
	return b.owner.id() + " store buffer"
}

func (b *storeBuf) len() int { return len(b.q) - b.head }

// bufEntry is one buffered store.
type bufEntry interface {
	at() (addr, size uintptr)
	commit()
	where() Pos // the store's source position
}

type typedEntry[T any] struct {
	p   *T
	v   T
	pos Pos
}

func (e *typedEntry[T]) at() (uintptr, uintptr) {
	return uintptr(unsafe.Pointer(e.p)), unsafe.Sizeof(e.v)
}
func (e *typedEntry[T]) commit()    { *e.p = e.v }
func (e *typedEntry[T]) where() Pos { return e.pos }

// Load returns *p as the running goroutine sees it: under TSO and PSO its
// newest buffered store to p, else memory. Under SC it is Read and *p. The
// rewriter calls it for the reads of shared variables under -memory tso|pso.
func Load[T any](p *T, pos Pos) T {
	if hot.Load() {
		return load(p, pos)
	}
	return *p
}

// Store stores v at p: under TSO and PSO into the goroutine's store buffer,
// under SC into memory after Write.
func Store[T any](p *T, v T, pos Pos) {
	if hot.Load() {
		storeBuffered(p, v, pos)
		return
	}
	*p = v
}

// Wrote reports a write of *p that has already reached memory (the
// rewriter reports so the targets of the assignments it cannot split, such
// as v, ok = f().(T), after the statement). The write is recorded in the
// current block, where it happened: unlike Write, no block boundary comes
// first, even at access granularity (a boundary there would put the
// recorded write in the block after the real one, and ExitBlock-RW would
// compare the wrong sets). Under TSO and PSO the goroutine's older
// buffered stores would commit after it and overwrite it, so it drains
// them, without a scheduling point in between, and writes the value again:
// a LOCK'd store. Either way no other goroutine can run between the
// previous block boundary and the write: fewer schedules than a store
// with a boundary of its own has, never more.
func Wrote[T any](p *T, pos Pos) {
	if hot.Load() {
		wrote(p, pos)
	}
}

//go:noinline
func wrote[T any](p *T, pos Pos) {
	r := concurrent.Load()
	if r == nil {
		return
	}
	t := r.bufferedEvent()
	if t == nil {
		return
	}
	size := unsafe.Sizeof(*p)
	if t.pending != 0 {
		v := *p
		r.drain(t)
		*p = v
	}
	if r.exploring {
		r.strat.Access(uintptr(unsafe.Pointer(p)), size, true)
	}
	if r.race.on() {
		r.race.access(t, unsafe.Pointer(p), size, true, pos)
	}
}

// Fence drains the running goroutine's store buffers (MFENCE). Every
// synchronization operation does as much; tests call it directly.
func Fence() {
	if r, t := enter(); r != nil {
		r.event(t)
	}
}

//go:noinline
func load[T any](p *T, pos Pos) (v T) {
	r := concurrent.Load()
	if r == nil {
		return *p
	}
	if r.mem == settings.SC {
		r.memory(unsafe.Pointer(p), unsafe.Sizeof(*p), false, pos)
		return *p
	}
	t := r.bufferedEvent()
	if t == nil {
		return *p
	}
	addr, size := uintptr(unsafe.Pointer(p)), unsafe.Sizeof(*p)
	r.accessStarts(t, addr, size) // the load starts a block (access granularity; tsoorder.go)
	forwarded := false
	if r.trace {
		defer func() { r.guide.traceLoad(t, pos, v, forwarded) }()
	}
	if r.exploring {
		r.strat.Access(addr, size, false)
	}
	if r.race.on() {
		r.race.access(t, unsafe.Pointer(p), size, false, pos)
	}
	if t.pending != 0 {
		for i := len(t.bufs) - 1; i >= 0; i-- {
			b := t.bufs[i]
			if r.mem == settings.PSO && b.addr != addr {
				continue
			}
			for j := len(b.q) - 1; j >= b.head; j-- {
				a, s := b.q[j].at()
				if a == addr && s == size {
					if e, ok := b.q[j].(*typedEntry[T]); ok {
						forwarded = true
						return e.v
					}
				}
				if addr < a+s && a < addr+size {
					// An overlapping store of another shape: no
					// forwarding of parts; fence and read memory.
					r.drain(t)
					return *p
				}
			}
		}
		if r.mem == settings.PSO && r.overlapsBuffered(t, addr, size) {
			r.drain(t)
		}
	}
	return *p
}

//go:noinline
func storeBuffered[T any](p *T, v T, pos Pos) {
	r := concurrent.Load()
	if r == nil {
		*p = v
		return
	}
	if r.mem == settings.SC {
		r.memory(unsafe.Pointer(p), unsafe.Sizeof(*p), true, pos)
		*p = v
		return
	}
	t := r.bufferedEvent()
	if t == nil {
		*p = v
		return
	}
	addr, size := uintptr(unsafe.Pointer(p)), unsafe.Sizeof(*p)
	if r.race.on() {
		r.race.access(t, unsafe.Pointer(p), size, true, pos)
	}
	if t.released {
		r.releaseBefore(t) // fences.go
	}
	// No block boundary: the store is invisible to other goroutines until
	// its flush, which is an event of its own.
	b := r.bufferFor(t, addr, size)
	b.q = append(b.q, &typedEntry[T]{p, v, pos})
	t.pending++
	r.guide.traceBuffered(t, pos) // tracebuf.go
	if b.len() == 1 {
		r.wakeFlusher(b)
	}
}

// bufferedEvent counts the event of a buffered access (which is no fence)
// and returns the running goroutine; nil for a finalizer's access, which is
// made natively (see foreign).
func (r *run) bufferedEvent() *thread {
	t := r.cur
	if t.g != getg() && r.foreign() {
		return nil
	}
	if r.dead.Load() {
		panic(teardown{})
	}
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	return t
}

// bufferFor returns the buffer a store to [addr, addr+size) of t goes to.
func (r *run) bufferFor(t *thread, addr, size uintptr) *storeBuf {
	if r.mem == settings.TSO {
		if len(t.bufs) == 0 {
			t.bufs = append(t.bufs, &storeBuf{owner: t})
		}
		return t.bufs[0]
	}
	// Per-address FIFOs must not reorder stores to overlapping locations
	// at different addresses: fence first (stronger than PSO, never weaker).
	if r.overlapsBuffered(t, addr, size) {
		r.drain(t)
	}
	for _, b := range t.bufs {
		if b.addr == addr {
			return b
		}
	}
	b := &storeBuf{owner: t, addr: addr}
	t.bufs = append(t.bufs, b)
	return b
}

// overlapsBuffered reports whether t has a buffered store that overlaps
// [addr, addr+size) at another address (PSO).
func (r *run) overlapsBuffered(t *thread, addr, size uintptr) bool {
	for _, b := range t.bufs {
		for j := b.head; j < len(b.q); j++ {
			a, s := b.q[j].at()
			if a != addr && addr < a+s && a < addr+size {
				return true
			}
		}
	}
	return false
}

// wakeFlusher makes b's flush pseudo-thread runnable (b has just become
// non-empty), creating it on first use.
func (r *run) wakeFlusher(b *storeBuf) {
	f := b.flusher
	if f == nil {
		f = r.newThread(nil, nil)
		f.flushOf = b
		f.fn = func() { r.flushLoop(f, b) }
		b.flusher = f
	}
	f.status = stRunnable
	f.on, f.onObj = "", -1
	if r.exploring {
		r.strat.Woken(f.idx, -1)
	}
}

// flushLoop is the body of a flush pseudo-thread: each block commits the
// oldest entry of its buffer; with nothing left it waits for the next store.
func (r *run) flushLoop(f *thread, b *storeBuf) {
	for {
		r.event(f)
		b.flushed = b.q[b.head].where()
		addr, size := r.commitOldest(b)
		if r.exploring {
			r.strat.Access(addr, size, true)
		}
		if b.len() == 0 {
			r.parkHere(f, "store", -1)
		} else {
			r.yield(f)
		}
	}
}

func (r *run) commitOldest(b *storeBuf) (addr, size uintptr) {
	e := b.q[b.head]
	b.q[b.head] = nil
	b.head++
	if b.head == len(b.q) {
		b.q, b.head = b.q[:0], 0
	}
	b.owner.pending--
	e.commit()
	return e.at()
}

// fence is the fence a synchronization operation of t with buffered stores
// performs before the operation itself: an event and a block boundary, so
// that flushes and other goroutines can run while the stores are still
// pending (without it a store directly followed by an operation, or by the
// goroutine's end, could never be seen out of order), then the drain.
func (r *run) fence(t *thread) {
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	r.transfer(t, r.point(t, r.fencePoint(t))) // tsoorder.go
	r.drain(t)
}

// drain commits every buffered store of t, in order, inside t's current
// block (a fence). The flushers of the drained buffers have nothing left to
// do: they stop being runnable, as if they had parked.
func (r *run) drain(t *thread) {
	for _, b := range t.bufs {
		if b.len() == 0 {
			continue
		}
		for b.len() > 0 {
			r.guide.traceDrained(b) // tracebuf.go
			addr, size := r.commitOldest(b)
			if r.exploring {
				r.strat.Access(addr, size, true)
			}
		}
		if f := b.flusher; f != nil && f.status == stRunnable {
			f.status = stWaiting
			f.on, f.onObj = "store", -1
			if r.exploring {
				r.strat.Disable(f.idx)
			}
		}
	}
}
