package scheduler_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	xb "github.com/xbtest/xbtest/scheduler"
)

// The drop-in types have the size and alignment of those they replace, so
// that layouts (cache-line padding, unsafe.Offsetof, struct sizes checked at
// compile time) are the same under xbtest.
func TestDropInSizes(t *testing.T) {
	type pair struct {
		name       string
		size, xb   uintptr
		align, xba uintptr
	}
	for _, p := range []pair{
		{"Mutex", unsafe.Sizeof(sync.Mutex{}), unsafe.Sizeof(xb.Mutex{}), unsafe.Alignof(sync.Mutex{}), unsafe.Alignof(xb.Mutex{})},
		{"RWMutex", unsafe.Sizeof(sync.RWMutex{}), unsafe.Sizeof(xb.RWMutex{}), unsafe.Alignof(sync.RWMutex{}), unsafe.Alignof(xb.RWMutex{})},
		{"WaitGroup", unsafe.Sizeof(sync.WaitGroup{}), unsafe.Sizeof(xb.WaitGroup{}), unsafe.Alignof(sync.WaitGroup{}), unsafe.Alignof(xb.WaitGroup{})},
		{"Once", unsafe.Sizeof(sync.Once{}), unsafe.Sizeof(xb.Once{}), unsafe.Alignof(sync.Once{}), unsafe.Alignof(xb.Once{})},
		{"Cond", unsafe.Sizeof(sync.Cond{}), unsafe.Sizeof(xb.Cond{}), unsafe.Alignof(sync.Cond{}), unsafe.Alignof(xb.Cond{})},
		{"Map", unsafe.Sizeof(sync.Map{}), unsafe.Sizeof(xb.Map{}), unsafe.Alignof(sync.Map{}), unsafe.Alignof(xb.Map{})},
		{"Pool", unsafe.Sizeof(sync.Pool{}), unsafe.Sizeof(xb.Pool{}), unsafe.Alignof(sync.Pool{}), unsafe.Alignof(xb.Pool{})},
		{"Int32", unsafe.Sizeof(atomic.Int32{}), unsafe.Sizeof(xb.Int32{}), unsafe.Alignof(atomic.Int32{}), unsafe.Alignof(xb.Int32{})},
		{"Int64", unsafe.Sizeof(atomic.Int64{}), unsafe.Sizeof(xb.Int64{}), unsafe.Alignof(atomic.Int64{}), unsafe.Alignof(xb.Int64{})},
		{"Uint32", unsafe.Sizeof(atomic.Uint32{}), unsafe.Sizeof(xb.Uint32{}), unsafe.Alignof(atomic.Uint32{}), unsafe.Alignof(xb.Uint32{})},
		{"Uint64", unsafe.Sizeof(atomic.Uint64{}), unsafe.Sizeof(xb.Uint64{}), unsafe.Alignof(atomic.Uint64{}), unsafe.Alignof(xb.Uint64{})},
		{"Uintptr", unsafe.Sizeof(atomic.Uintptr{}), unsafe.Sizeof(xb.Uintptr{}), unsafe.Alignof(atomic.Uintptr{}), unsafe.Alignof(xb.Uintptr{})},
		{"Bool", unsafe.Sizeof(atomic.Bool{}), unsafe.Sizeof(xb.Bool{}), unsafe.Alignof(atomic.Bool{}), unsafe.Alignof(xb.Bool{})},
		{"Value", unsafe.Sizeof(atomic.Value{}), unsafe.Sizeof(xb.Value{}), unsafe.Alignof(atomic.Value{}), unsafe.Alignof(xb.Value{})},
		{"Pointer", unsafe.Sizeof(atomic.Pointer[int]{}), unsafe.Sizeof(xb.Pointer[int]{}), unsafe.Alignof(atomic.Pointer[int]{}), unsafe.Alignof(xb.Pointer[int]{})},
	} {
		if p.size != p.xb || p.align != p.xba {
			t.Errorf("%s: %d bytes aligned %d, sync's %d aligned %d", p.name, p.xb, p.xba, p.size, p.align)
		}
	}
	// A Pool's New is where sync.Pool has it.
	if a, b := unsafe.Offsetof(sync.Pool{}.New), unsafe.Offsetof(xb.Pool{}.New); a != b {
		t.Errorf("Pool.New at %d, sync.Pool.New at %d", b, a)
	}
}
