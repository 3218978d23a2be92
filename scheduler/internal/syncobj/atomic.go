package syncobj

import (
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// sync/atomic. Each operation is performed on the real variable (so code
// xbtest does not control sees it), recorded as an access of the variable (a
// load reads, everything else writes; under -sync-deps every operation
// writes), and ends an atomic block: it is a tiny synchronized region.
// Compare-and-swaps go through casOp, which -cas relaxed makes no fence.

// atomically runs op as one atomic operation on the variable at addr.
func atomically[V, R any](addr *V, write bool, op func() R) R {
	g := engine.Enter()
	if g == nil {
		return op()
	}
	g.OpPoint()
	g.Event()
	if write {
		g.Wrote()
	}
	g.DataAccess(unsafe.Pointer(addr), unsafe.Sizeof(*addr), write)
	g.Races().Atomic(g.Index(), unsafe.Pointer(addr), unsafe.Sizeof(*addr), write)
	v := op()
	g.EndBlock()
	return v
}

// casOp runs a compare-and-swap of the variable at addr: as every atomic
// operation (a full fence), unless -cas relaxed makes it none (the
// engine's RelaxedCASStart: under -memory pso, with stores pending).
func casOp[V any](addr *V, op func() bool) bool {
	g := engine.Enter()
	if g == nil || !g.RelaxedCASStart(unsafe.Pointer(addr), unsafe.Sizeof(*addr)) {
		return atomically(addr, true, op)
	}
	g.Wrote()
	g.DataAccess(unsafe.Pointer(addr), unsafe.Sizeof(*addr), true)
	g.Races().Atomic(g.Index(), unsafe.Pointer(addr), unsafe.Sizeof(*addr), true)
	v := op()
	g.EndBlock()
	return v
}

// store is atomically for operations without a result.
func store[V any](addr *V, op func()) {
	atomically(addr, true, func() struct{} { op(); return struct{}{} })
}

// AddInt32 is atomic.AddInt32.
func AddInt32(addr *int32, delta int32) int32 {
	return atomically(addr, true, func() int32 { return atomic.AddInt32(addr, delta) })
}

// AndInt32 is atomic.AndInt32.
func AndInt32(addr *int32, mask int32) int32 {
	return atomically(addr, true, func() int32 { return atomic.AndInt32(addr, mask) })
}

// OrInt32 is atomic.OrInt32.
func OrInt32(addr *int32, mask int32) int32 {
	return atomically(addr, true, func() int32 { return atomic.OrInt32(addr, mask) })
}

// CompareAndSwapInt32 is atomic.CompareAndSwapInt32.
func CompareAndSwapInt32(addr *int32, old, new int32) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapInt32(addr, old, new) })
}

// LoadInt32 is atomic.LoadInt32.
func LoadInt32(addr *int32) int32 {
	return atomically(addr, false, func() int32 { return atomic.LoadInt32(addr) })
}

// StoreInt32 is atomic.StoreInt32.
func StoreInt32(addr *int32, val int32) { store(addr, func() { atomic.StoreInt32(addr, val) }) }

// SwapInt32 is atomic.SwapInt32.
func SwapInt32(addr *int32, new int32) int32 {
	return atomically(addr, true, func() int32 { return atomic.SwapInt32(addr, new) })
}

// Int32 is a drop-in replacement for atomic.Int32.
type Int32 struct{ v atomic.Int32 }

func (x *Int32) Load() int32     { return atomically(&x.v, false, x.v.Load) }
func (x *Int32) Store(val int32) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Int32) Swap(new int32) int32 {
	return atomically(&x.v, true, func() int32 { return x.v.Swap(new) })
}
func (x *Int32) Add(delta int32) int32 {
	return atomically(&x.v, true, func() int32 { return x.v.Add(delta) })
}
func (x *Int32) And(mask int32) int32 {
	return atomically(&x.v, true, func() int32 { return x.v.And(mask) })
}
func (x *Int32) Or(mask int32) int32 {
	return atomically(&x.v, true, func() int32 { return x.v.Or(mask) })
}
func (x *Int32) CompareAndSwap(old, new int32) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// AddInt64 is atomic.AddInt64.
func AddInt64(addr *int64, delta int64) int64 {
	return atomically(addr, true, func() int64 { return atomic.AddInt64(addr, delta) })
}

// AndInt64 is atomic.AndInt64.
func AndInt64(addr *int64, mask int64) int64 {
	return atomically(addr, true, func() int64 { return atomic.AndInt64(addr, mask) })
}

// OrInt64 is atomic.OrInt64.
func OrInt64(addr *int64, mask int64) int64 {
	return atomically(addr, true, func() int64 { return atomic.OrInt64(addr, mask) })
}

// CompareAndSwapInt64 is atomic.CompareAndSwapInt64.
func CompareAndSwapInt64(addr *int64, old, new int64) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapInt64(addr, old, new) })
}

// LoadInt64 is atomic.LoadInt64.
func LoadInt64(addr *int64) int64 {
	return atomically(addr, false, func() int64 { return atomic.LoadInt64(addr) })
}

// StoreInt64 is atomic.StoreInt64.
func StoreInt64(addr *int64, val int64) { store(addr, func() { atomic.StoreInt64(addr, val) }) }

// SwapInt64 is atomic.SwapInt64.
func SwapInt64(addr *int64, new int64) int64 {
	return atomically(addr, true, func() int64 { return atomic.SwapInt64(addr, new) })
}

// Int64 is a drop-in replacement for atomic.Int64.
type Int64 struct{ v atomic.Int64 }

func (x *Int64) Load() int64     { return atomically(&x.v, false, x.v.Load) }
func (x *Int64) Store(val int64) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Int64) Swap(new int64) int64 {
	return atomically(&x.v, true, func() int64 { return x.v.Swap(new) })
}
func (x *Int64) Add(delta int64) int64 {
	return atomically(&x.v, true, func() int64 { return x.v.Add(delta) })
}
func (x *Int64) And(mask int64) int64 {
	return atomically(&x.v, true, func() int64 { return x.v.And(mask) })
}
func (x *Int64) Or(mask int64) int64 {
	return atomically(&x.v, true, func() int64 { return x.v.Or(mask) })
}
func (x *Int64) CompareAndSwap(old, new int64) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// AddUint32 is atomic.AddUint32.
func AddUint32(addr *uint32, delta uint32) uint32 {
	return atomically(addr, true, func() uint32 { return atomic.AddUint32(addr, delta) })
}

// AndUint32 is atomic.AndUint32.
func AndUint32(addr *uint32, mask uint32) uint32 {
	return atomically(addr, true, func() uint32 { return atomic.AndUint32(addr, mask) })
}

// OrUint32 is atomic.OrUint32.
func OrUint32(addr *uint32, mask uint32) uint32 {
	return atomically(addr, true, func() uint32 { return atomic.OrUint32(addr, mask) })
}

// CompareAndSwapUint32 is atomic.CompareAndSwapUint32.
func CompareAndSwapUint32(addr *uint32, old, new uint32) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapUint32(addr, old, new) })
}

// LoadUint32 is atomic.LoadUint32.
func LoadUint32(addr *uint32) uint32 {
	return atomically(addr, false, func() uint32 { return atomic.LoadUint32(addr) })
}

// StoreUint32 is atomic.StoreUint32.
func StoreUint32(addr *uint32, val uint32) { store(addr, func() { atomic.StoreUint32(addr, val) }) }

// SwapUint32 is atomic.SwapUint32.
func SwapUint32(addr *uint32, new uint32) uint32 {
	return atomically(addr, true, func() uint32 { return atomic.SwapUint32(addr, new) })
}

// Uint32 is a drop-in replacement for atomic.Uint32.
type Uint32 struct{ v atomic.Uint32 }

func (x *Uint32) Load() uint32     { return atomically(&x.v, false, x.v.Load) }
func (x *Uint32) Store(val uint32) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Uint32) Swap(new uint32) uint32 {
	return atomically(&x.v, true, func() uint32 { return x.v.Swap(new) })
}
func (x *Uint32) Add(delta uint32) uint32 {
	return atomically(&x.v, true, func() uint32 { return x.v.Add(delta) })
}
func (x *Uint32) And(mask uint32) uint32 {
	return atomically(&x.v, true, func() uint32 { return x.v.And(mask) })
}
func (x *Uint32) Or(mask uint32) uint32 {
	return atomically(&x.v, true, func() uint32 { return x.v.Or(mask) })
}
func (x *Uint32) CompareAndSwap(old, new uint32) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// AddUint64 is atomic.AddUint64.
func AddUint64(addr *uint64, delta uint64) uint64 {
	return atomically(addr, true, func() uint64 { return atomic.AddUint64(addr, delta) })
}

// AndUint64 is atomic.AndUint64.
func AndUint64(addr *uint64, mask uint64) uint64 {
	return atomically(addr, true, func() uint64 { return atomic.AndUint64(addr, mask) })
}

// OrUint64 is atomic.OrUint64.
func OrUint64(addr *uint64, mask uint64) uint64 {
	return atomically(addr, true, func() uint64 { return atomic.OrUint64(addr, mask) })
}

// CompareAndSwapUint64 is atomic.CompareAndSwapUint64.
func CompareAndSwapUint64(addr *uint64, old, new uint64) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapUint64(addr, old, new) })
}

// LoadUint64 is atomic.LoadUint64.
func LoadUint64(addr *uint64) uint64 {
	return atomically(addr, false, func() uint64 { return atomic.LoadUint64(addr) })
}

// StoreUint64 is atomic.StoreUint64.
func StoreUint64(addr *uint64, val uint64) { store(addr, func() { atomic.StoreUint64(addr, val) }) }

// SwapUint64 is atomic.SwapUint64.
func SwapUint64(addr *uint64, new uint64) uint64 {
	return atomically(addr, true, func() uint64 { return atomic.SwapUint64(addr, new) })
}

// Uint64 is a drop-in replacement for atomic.Uint64.
type Uint64 struct{ v atomic.Uint64 }

func (x *Uint64) Load() uint64     { return atomically(&x.v, false, x.v.Load) }
func (x *Uint64) Store(val uint64) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Uint64) Swap(new uint64) uint64 {
	return atomically(&x.v, true, func() uint64 { return x.v.Swap(new) })
}
func (x *Uint64) Add(delta uint64) uint64 {
	return atomically(&x.v, true, func() uint64 { return x.v.Add(delta) })
}
func (x *Uint64) And(mask uint64) uint64 {
	return atomically(&x.v, true, func() uint64 { return x.v.And(mask) })
}
func (x *Uint64) Or(mask uint64) uint64 {
	return atomically(&x.v, true, func() uint64 { return x.v.Or(mask) })
}
func (x *Uint64) CompareAndSwap(old, new uint64) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// AddUintptr is atomic.AddUintptr.
func AddUintptr(addr *uintptr, delta uintptr) uintptr {
	return atomically(addr, true, func() uintptr { return atomic.AddUintptr(addr, delta) })
}

// AndUintptr is atomic.AndUintptr.
func AndUintptr(addr *uintptr, mask uintptr) uintptr {
	return atomically(addr, true, func() uintptr { return atomic.AndUintptr(addr, mask) })
}

// OrUintptr is atomic.OrUintptr.
func OrUintptr(addr *uintptr, mask uintptr) uintptr {
	return atomically(addr, true, func() uintptr { return atomic.OrUintptr(addr, mask) })
}

// CompareAndSwapUintptr is atomic.CompareAndSwapUintptr.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapUintptr(addr, old, new) })
}

// LoadUintptr is atomic.LoadUintptr.
func LoadUintptr(addr *uintptr) uintptr {
	return atomically(addr, false, func() uintptr { return atomic.LoadUintptr(addr) })
}

// StoreUintptr is atomic.StoreUintptr.
func StoreUintptr(addr *uintptr, val uintptr) { store(addr, func() { atomic.StoreUintptr(addr, val) }) }

// SwapUintptr is atomic.SwapUintptr.
func SwapUintptr(addr *uintptr, new uintptr) uintptr {
	return atomically(addr, true, func() uintptr { return atomic.SwapUintptr(addr, new) })
}

// Uintptr is a drop-in replacement for atomic.Uintptr.
type Uintptr struct{ v atomic.Uintptr }

func (x *Uintptr) Load() uintptr     { return atomically(&x.v, false, x.v.Load) }
func (x *Uintptr) Store(val uintptr) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Uintptr) Swap(new uintptr) uintptr {
	return atomically(&x.v, true, func() uintptr { return x.v.Swap(new) })
}
func (x *Uintptr) Add(delta uintptr) uintptr {
	return atomically(&x.v, true, func() uintptr { return x.v.Add(delta) })
}
func (x *Uintptr) And(mask uintptr) uintptr {
	return atomically(&x.v, true, func() uintptr { return x.v.And(mask) })
}
func (x *Uintptr) Or(mask uintptr) uintptr {
	return atomically(&x.v, true, func() uintptr { return x.v.Or(mask) })
}
func (x *Uintptr) CompareAndSwap(old, new uintptr) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// CompareAndSwapPointer is atomic.CompareAndSwapPointer.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) bool {
	return casOp(addr, func() bool { return atomic.CompareAndSwapPointer(addr, old, new) })
}

// LoadPointer is atomic.LoadPointer.
func LoadPointer(addr *unsafe.Pointer) unsafe.Pointer {
	return atomically(addr, false, func() unsafe.Pointer { return atomic.LoadPointer(addr) })
}

// StorePointer is atomic.StorePointer.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	store(addr, func() { atomic.StorePointer(addr, val) })
}

// SwapPointer is atomic.SwapPointer.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) unsafe.Pointer {
	return atomically(addr, true, func() unsafe.Pointer { return atomic.SwapPointer(addr, new) })
}

// Bool is a drop-in replacement for atomic.Bool.
type Bool struct{ v atomic.Bool }

func (x *Bool) Load() bool     { return atomically(&x.v, false, x.v.Load) }
func (x *Bool) Store(val bool) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Bool) Swap(new bool) bool {
	return atomically(&x.v, true, func() bool { return x.v.Swap(new) })
}
func (x *Bool) CompareAndSwap(old, new bool) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// Pointer is a drop-in replacement for atomic.Pointer.
type Pointer[T any] struct{ v atomic.Pointer[T] }

func (x *Pointer[T]) Load() *T     { return atomically(&x.v, false, x.v.Load) }
func (x *Pointer[T]) Store(val *T) { store(&x.v, func() { x.v.Store(val) }) }
func (x *Pointer[T]) Swap(new *T) *T {
	return atomically(&x.v, true, func() *T { return x.v.Swap(new) })
}
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}

// Value is a drop-in replacement for atomic.Value.
type Value struct{ v atomic.Value }

func (x *Value) Load() any        { return atomically(&x.v, false, x.v.Load) }
func (x *Value) Store(val any)    { store(&x.v, func() { x.v.Store(val) }) }
func (x *Value) Swap(new any) any { return atomically(&x.v, true, func() any { return x.v.Swap(new) }) }
func (x *Value) CompareAndSwap(old, new any) bool {
	return casOp(&x.v, func() bool { return x.v.CompareAndSwap(old, new) })
}
