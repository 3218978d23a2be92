package engine

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"github.com/xbtest/xbtest/settings"
)

// The hooks of the store buffers (-memory tso|pso): the rewriter calls
// Load, Store and Wrote for the reads and writes of shared variables, and
// they forward the store-buffer work to package
// scheduler/internal/storebuf (the machine, its flush orders and why they
// are sound are explained there). Under SC they are Read and Write.

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
	if t.sb.Pending != 0 {
		v := *p
		r.buf.Drain(&t.sb)
		*p = v
	}
	if r.exploring {
		r.strat.Access(uintptr(unsafe.Pointer(p)), size, true)
	}
	if r.race.On() {
		r.race.Access(t.idx, unsafe.Pointer(p), size, true, uint32(pos))
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
	r.buf.AccessStarts(&t.sb, addr, size) // the load starts a block (access granularity)
	forwarded := false
	if r.trace {
		defer func() { r.guide.TraceLoad(t.id(), pos, v, forwarded) }()
	}
	if r.exploring {
		r.strat.Access(addr, size, false)
	}
	if r.race.On() {
		r.race.Access(t.idx, unsafe.Pointer(p), size, false, uint32(pos))
	}
	if t.sb.Pending != 0 {
		switch fv, f := storebuf.Forward[T](&r.buf, &t.sb, addr, size); f {
		case storebuf.Forwarded:
			forwarded = true
			return fv
		case storebuf.Overlaps:
			r.buf.Drain(&t.sb)
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
	if r.race.On() {
		r.race.Access(t.idx, unsafe.Pointer(p), unsafe.Sizeof(*p), true, uint32(pos))
	}
	r.buf.Store(&t.sb, &storebuf.Typed[T]{P: p, V: v, Pos: uint32(pos)})
}
