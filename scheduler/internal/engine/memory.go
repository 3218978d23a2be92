package engine

import (
	"reflect"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/location"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// Pos names a source position of instrumented code (package srcpos's
// registry); 0 is unknown.
type Pos = srcpos.Pos

// Read reports that the running goroutine read size bytes at addr. It is
// small enough to be inlined into instrumented code, and costs one atomic
// load and a test until the execution has a second goroutine: before that,
// the test's accesses can neither race nor order anything (they happen
// before every goroutine it starts), so sequential set-up runs at nearly
// full speed.
func Read(addr unsafe.Pointer, size uintptr, pos Pos) {
	if hot.Load() {
		read(addr, size, pos)
	}
}

// Write reports that the running goroutine wrote size bytes at addr.
func Write(addr unsafe.Pointer, size uintptr, pos Pos) {
	if hot.Load() {
		write(addr, size, pos)
	}
}

// read and write are the out-of-line part of Read and Write, kept small so
// that the helpers the rewriter wraps around Read and Write stay small
// enough to be inlined too.
//
//go:noinline
func read(addr unsafe.Pointer, size uintptr, pos Pos) {
	concurrent.Load().memory(addr, size, false, pos)
}

//go:noinline
func write(addr unsafe.Pointer, size uintptr, pos Pos) {
	concurrent.Load().memory(addr, size, true, pos)
}

func (r *run) memory(addr unsafe.Pointer, size uintptr, write bool, pos Pos) {
	if r == nil {
		return // the execution ended between the test and the call
	}
	t := r.cur
	if t.g != getg() && r.foreign() {
		return
	}
	if r.dead.Load() {
		panic(teardown{})
	}
	r.event(t)
	if write {
		t.wroteAt, t.readSpread = t.steps, 0
	} else {
		t.readSpread |= spreadBit(uintptr(addr))
	}
	if r.access || racyReason(pos) != "" {
		// -granularity access, or a race by design (racy.go): the access
		// starts a block (package storebuf)
		r.buf.AccessStarts(&t.sb, uintptr(addr), size)
	}
	if r.exploring {
		r.strat.Access(uintptr(addr), size, write)
	}
	if r.race.On() {
		r.race.Access(t.idx, addr, size, write, uint32(pos))
	}
}

// Global registers a package-level variable of an instrumented package, so
// that it has the same name in every execution (and in reports).
func Global(addr unsafe.Pointer, size uintptr, name string) {
	location.RegisterGlobal(addr, size, name, nil)
}

// GlobalOf registers the package-level variable p points to, with its type,
// so that fork checkpoints can tell whether a test changed it (see
// the driver's fingerprint.go). p must be a non-nil pointer.
func GlobalOf(p any, name string) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	t := v.Type().Elem()
	location.RegisterGlobal(v.UnsafePointer(), t.Size(), name, t)
}

// Alloc registers a heap object the running goroutine just allocated
// (package location names the object across executions).
func Alloc(addr unsafe.Pointer, size uintptr) {
	r, t := enter()
	if r == nil {
		return
	}
	r.alloc(t, addr, size, nil, false)
}

// alloc registers an object; fresh: just allocated (see location.Index.Add).
// An object that took the place of a dead one starts with no history in
// the race detection, as under Go's race detector.
func (r *run) alloc(t *thread, addr unsafe.Pointer, size uintptr, typ reflect.Type, fresh bool) {
	if r.heap.Add(addr, size, sched.HeapKey{Thread: t.idx, Seq: t.allocs}, typ, fresh) {
		r.race.Forget(uintptr(addr), size)
		r.sync.forget(uintptr(addr), uintptr(addr)+size)
	}
	t.allocs++
}

// New registers the object p points to and returns p; the rewriter wraps
// new(T) and &T{...} in it.
func New[T any](p *T) *T {
	if r, t := enter(); r != nil {
		r.alloc(t, unsafe.Pointer(p), unsafe.Sizeof(*p), reflect.TypeFor[T](), true)
	}
	return p
}

// Slice registers the backing array of s and returns s; the rewriter wraps
// make([]T, n) and append in it.
func Slice[T any](s []T) []T {
	if cap(s) == 0 {
		return s
	}
	if r, t := enter(); r != nil {
		var z T
		r.alloc(t, unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(z), reflect.ArrayOf(cap(s), reflect.TypeFor[T]()), false)
	}
	return s
}

// NewMap registers a map made by make and returns it; a map is one location.
func NewMap[M ~map[K]V, K comparable, V any](m M) M {
	if r, t := enter(); r != nil && m != nil {
		r.alloc(t, MapAddr(m), 1, reflect.TypeFor[M](), true)
	}
	return m
}

// MapAddr returns the location that stands for the whole map m.
func MapAddr[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}
