package engine

import (
	"sync/atomic"
	"unsafe"
)

// The fast path of package scheduler's Read and Write, which test hot
// themselves rather than forward to Read and Write here: the rewriter's
// helpers around every shared access (_xbLoad, _xbRef.set) are inlined
// only within the inliner's budget of 80, and one more level of forwarding
// costs a helper that budget (measured: _xbLoad cost 85, not inlined;
// inlined, the sequential tight loop of cmd/xbtest's
// BenchmarkSequentialSlowdown runs about twice as fast).

// HotWord is the word of hot (Hot; an atomic.Bool is one uint32), for an
// atomic load by package scheduler: cheaper to inline than Hot.Load().
func HotWord() *uint32 { return (*uint32)(unsafe.Pointer(&hot)) }

// An atomic.Bool is 4 bytes (each bound is negative, a compile error,
// otherwise); TestHotWord checks that its word is what Store sets.
var (
	_ [unsafe.Sizeof(atomic.Bool{}) - 4]struct{}
	_ [4 - unsafe.Sizeof(atomic.Bool{})]struct{}
)

// ReadSlow is Read once hot is set.
//
//go:noinline
func ReadSlow(addr unsafe.Pointer, size uintptr, pos Pos) {
	concurrent.Load().memory(addr, size, false, pos)
}

// WriteSlow is Write once hot is set.
//
//go:noinline
func WriteSlow(addr unsafe.Pointer, size uintptr, pos Pos) {
	concurrent.Load().memory(addr, size, true, pos)
}
