package scheduler

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/syncobj"
)

// The functions and drop-in types of package sync/atomic.

// AddInt32 is atomic.AddInt32.
func AddInt32(addr *int32, delta int32) int32 { return syncobj.AddInt32(addr, delta) }

// AndInt32 is atomic.AndInt32.
func AndInt32(addr *int32, mask int32) int32 { return syncobj.AndInt32(addr, mask) }

// OrInt32 is atomic.OrInt32.
func OrInt32(addr *int32, mask int32) int32 { return syncobj.OrInt32(addr, mask) }

// CompareAndSwapInt32 is atomic.CompareAndSwapInt32.
func CompareAndSwapInt32(addr *int32, old, new int32) bool {
	return syncobj.CompareAndSwapInt32(addr, old, new)
}

// LoadInt32 is atomic.LoadInt32.
func LoadInt32(addr *int32) int32 { return syncobj.LoadInt32(addr) }

// StoreInt32 is atomic.StoreInt32.
func StoreInt32(addr *int32, val int32) { syncobj.StoreInt32(addr, val) }

// SwapInt32 is atomic.SwapInt32.
func SwapInt32(addr *int32, new int32) int32 { return syncobj.SwapInt32(addr, new) }

// Int32 is a drop-in replacement for atomic.Int32.
type Int32 struct{ e syncobj.Int32 }

func (x *Int32) Load() int32 { return x.e.Load() }

func (x *Int32) Store(val int32) { x.e.Store(val) }

func (x *Int32) Swap(new int32) int32 { return x.e.Swap(new) }

func (x *Int32) Add(delta int32) int32 { return x.e.Add(delta) }

func (x *Int32) And(mask int32) int32 { return x.e.And(mask) }

func (x *Int32) Or(mask int32) int32 { return x.e.Or(mask) }

func (x *Int32) CompareAndSwap(old, new int32) bool { return x.e.CompareAndSwap(old, new) }

// AddInt64 is atomic.AddInt64.
func AddInt64(addr *int64, delta int64) int64 { return syncobj.AddInt64(addr, delta) }

// AndInt64 is atomic.AndInt64.
func AndInt64(addr *int64, mask int64) int64 { return syncobj.AndInt64(addr, mask) }

// OrInt64 is atomic.OrInt64.
func OrInt64(addr *int64, mask int64) int64 { return syncobj.OrInt64(addr, mask) }

// CompareAndSwapInt64 is atomic.CompareAndSwapInt64.
func CompareAndSwapInt64(addr *int64, old, new int64) bool {
	return syncobj.CompareAndSwapInt64(addr, old, new)
}

// LoadInt64 is atomic.LoadInt64.
func LoadInt64(addr *int64) int64 { return syncobj.LoadInt64(addr) }

// StoreInt64 is atomic.StoreInt64.
func StoreInt64(addr *int64, val int64) { syncobj.StoreInt64(addr, val) }

// SwapInt64 is atomic.SwapInt64.
func SwapInt64(addr *int64, new int64) int64 { return syncobj.SwapInt64(addr, new) }

// Int64 is a drop-in replacement for atomic.Int64.
type Int64 struct{ e syncobj.Int64 }

func (x *Int64) Load() int64 { return x.e.Load() }

func (x *Int64) Store(val int64) { x.e.Store(val) }

func (x *Int64) Swap(new int64) int64 { return x.e.Swap(new) }

func (x *Int64) Add(delta int64) int64 { return x.e.Add(delta) }

func (x *Int64) And(mask int64) int64 { return x.e.And(mask) }

func (x *Int64) Or(mask int64) int64 { return x.e.Or(mask) }

func (x *Int64) CompareAndSwap(old, new int64) bool { return x.e.CompareAndSwap(old, new) }

// AddUint32 is atomic.AddUint32.
func AddUint32(addr *uint32, delta uint32) uint32 { return syncobj.AddUint32(addr, delta) }

// AndUint32 is atomic.AndUint32.
func AndUint32(addr *uint32, mask uint32) uint32 { return syncobj.AndUint32(addr, mask) }

// OrUint32 is atomic.OrUint32.
func OrUint32(addr *uint32, mask uint32) uint32 { return syncobj.OrUint32(addr, mask) }

// CompareAndSwapUint32 is atomic.CompareAndSwapUint32.
func CompareAndSwapUint32(addr *uint32, old, new uint32) bool {
	return syncobj.CompareAndSwapUint32(addr, old, new)
}

// LoadUint32 is atomic.LoadUint32.
func LoadUint32(addr *uint32) uint32 { return syncobj.LoadUint32(addr) }

// StoreUint32 is atomic.StoreUint32.
func StoreUint32(addr *uint32, val uint32) { syncobj.StoreUint32(addr, val) }

// SwapUint32 is atomic.SwapUint32.
func SwapUint32(addr *uint32, new uint32) uint32 { return syncobj.SwapUint32(addr, new) }

// Uint32 is a drop-in replacement for atomic.Uint32.
type Uint32 struct{ e syncobj.Uint32 }

func (x *Uint32) Load() uint32 { return x.e.Load() }

func (x *Uint32) Store(val uint32) { x.e.Store(val) }

func (x *Uint32) Swap(new uint32) uint32 { return x.e.Swap(new) }

func (x *Uint32) Add(delta uint32) uint32 { return x.e.Add(delta) }

func (x *Uint32) And(mask uint32) uint32 { return x.e.And(mask) }

func (x *Uint32) Or(mask uint32) uint32 { return x.e.Or(mask) }

func (x *Uint32) CompareAndSwap(old, new uint32) bool { return x.e.CompareAndSwap(old, new) }

// AddUint64 is atomic.AddUint64.
func AddUint64(addr *uint64, delta uint64) uint64 { return syncobj.AddUint64(addr, delta) }

// AndUint64 is atomic.AndUint64.
func AndUint64(addr *uint64, mask uint64) uint64 { return syncobj.AndUint64(addr, mask) }

// OrUint64 is atomic.OrUint64.
func OrUint64(addr *uint64, mask uint64) uint64 { return syncobj.OrUint64(addr, mask) }

// CompareAndSwapUint64 is atomic.CompareAndSwapUint64.
func CompareAndSwapUint64(addr *uint64, old, new uint64) bool {
	return syncobj.CompareAndSwapUint64(addr, old, new)
}

// LoadUint64 is atomic.LoadUint64.
func LoadUint64(addr *uint64) uint64 { return syncobj.LoadUint64(addr) }

// StoreUint64 is atomic.StoreUint64.
func StoreUint64(addr *uint64, val uint64) { syncobj.StoreUint64(addr, val) }

// SwapUint64 is atomic.SwapUint64.
func SwapUint64(addr *uint64, new uint64) uint64 { return syncobj.SwapUint64(addr, new) }

// Uint64 is a drop-in replacement for atomic.Uint64.
type Uint64 struct{ e syncobj.Uint64 }

func (x *Uint64) Load() uint64 { return x.e.Load() }

func (x *Uint64) Store(val uint64) { x.e.Store(val) }

func (x *Uint64) Swap(new uint64) uint64 { return x.e.Swap(new) }

func (x *Uint64) Add(delta uint64) uint64 { return x.e.Add(delta) }

func (x *Uint64) And(mask uint64) uint64 { return x.e.And(mask) }

func (x *Uint64) Or(mask uint64) uint64 { return x.e.Or(mask) }

func (x *Uint64) CompareAndSwap(old, new uint64) bool { return x.e.CompareAndSwap(old, new) }

// AddUintptr is atomic.AddUintptr.
func AddUintptr(addr *uintptr, delta uintptr) uintptr { return syncobj.AddUintptr(addr, delta) }

// AndUintptr is atomic.AndUintptr.
func AndUintptr(addr *uintptr, mask uintptr) uintptr { return syncobj.AndUintptr(addr, mask) }

// OrUintptr is atomic.OrUintptr.
func OrUintptr(addr *uintptr, mask uintptr) uintptr { return syncobj.OrUintptr(addr, mask) }

// CompareAndSwapUintptr is atomic.CompareAndSwapUintptr.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) bool {
	return syncobj.CompareAndSwapUintptr(addr, old, new)
}

// LoadUintptr is atomic.LoadUintptr.
func LoadUintptr(addr *uintptr) uintptr { return syncobj.LoadUintptr(addr) }

// StoreUintptr is atomic.StoreUintptr.
func StoreUintptr(addr *uintptr, val uintptr) { syncobj.StoreUintptr(addr, val) }

// SwapUintptr is atomic.SwapUintptr.
func SwapUintptr(addr *uintptr, new uintptr) uintptr { return syncobj.SwapUintptr(addr, new) }

// Uintptr is a drop-in replacement for atomic.Uintptr.
type Uintptr struct{ e syncobj.Uintptr }

func (x *Uintptr) Load() uintptr { return x.e.Load() }

func (x *Uintptr) Store(val uintptr) { x.e.Store(val) }

func (x *Uintptr) Swap(new uintptr) uintptr { return x.e.Swap(new) }

func (x *Uintptr) Add(delta uintptr) uintptr { return x.e.Add(delta) }

func (x *Uintptr) And(mask uintptr) uintptr { return x.e.And(mask) }

func (x *Uintptr) Or(mask uintptr) uintptr { return x.e.Or(mask) }

func (x *Uintptr) CompareAndSwap(old, new uintptr) bool { return x.e.CompareAndSwap(old, new) }

// CompareAndSwapPointer is atomic.CompareAndSwapPointer.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) bool {
	return syncobj.CompareAndSwapPointer(addr, old, new)
}

// LoadPointer is atomic.LoadPointer.
func LoadPointer(addr *unsafe.Pointer) unsafe.Pointer { return syncobj.LoadPointer(addr) }

// StorePointer is atomic.StorePointer.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) { syncobj.StorePointer(addr, val) }

// SwapPointer is atomic.SwapPointer.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) unsafe.Pointer {
	return syncobj.SwapPointer(addr, new)
}

// Bool is a drop-in replacement for atomic.Bool.
type Bool struct{ e syncobj.Bool }

func (x *Bool) Load() bool { return x.e.Load() }

func (x *Bool) Store(val bool) { x.e.Store(val) }

func (x *Bool) Swap(new bool) bool { return x.e.Swap(new) }

func (x *Bool) CompareAndSwap(old, new bool) bool { return x.e.CompareAndSwap(old, new) }

// Pointer is a drop-in replacement for atomic.Pointer.
type Pointer[T any] struct{ e syncobj.Pointer[T] }

func (x *Pointer[T]) Load() *T { return x.e.Load() }

func (x *Pointer[T]) Store(val *T) { x.e.Store(val) }

func (x *Pointer[T]) Swap(new *T) *T { return x.e.Swap(new) }

func (x *Pointer[T]) CompareAndSwap(old, new *T) bool { return x.e.CompareAndSwap(old, new) }

// Value is a drop-in replacement for atomic.Value.
type Value struct{ e syncobj.Value }

func (x *Value) Load() any { return x.e.Load() }

func (x *Value) Store(val any) { x.e.Store(val) }

func (x *Value) Swap(new any) any { return x.e.Swap(new) }

func (x *Value) CompareAndSwap(old, new any) bool { return x.e.CompareAndSwap(old, new) }
