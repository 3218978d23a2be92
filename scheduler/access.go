package scheduler

import (
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Memory: the accesses of shared variables and the objects they live in.

// Read reports that the running goroutine read size bytes at addr. It is
// small enough to be inlined into instrumented code, and costs one atomic
// load and a test until the execution has a second goroutine: before that,
// the test's accesses can neither race nor order anything (they happen
// before every goroutine it starts), so sequential set-up runs at nearly
// full speed.
// Read and Write test the engine's flag themselves (see
// engine/hotword.go): forwarded, the rewriter's helpers would not be
// inlined.
func Read(addr unsafe.Pointer, size uintptr, pos Pos) {
	if atomic.LoadUint32(hotWord) != 0 {
		engine.ReadSlow(addr, size, pos)
	}
}

// Write reports that the running goroutine wrote size bytes at addr.
func Write(addr unsafe.Pointer, size uintptr, pos Pos) {
	if atomic.LoadUint32(hotWord) != 0 {
		engine.WriteSlow(addr, size, pos)
	}
}

// hotWord is set while accesses must be reported (engine.HotWord).
var hotWord = engine.HotWord()

// Global registers a package-level variable of an instrumented package, so
// that it has the same name in every execution (and in reports).
func Global(addr unsafe.Pointer, size uintptr, name string) { engine.Global(addr, size, name) }

// GlobalOf registers the package-level variable p points to, with its type,
// so that fork checkpoints can tell whether a test changed it (see
// the driver's fingerprint.go). p must be a non-nil pointer.
func GlobalOf(p any, name string) { engine.GlobalOf(p, name) }

// Alloc registers a heap object the running goroutine just allocated
// (package scheduler/internal/location names the object across
// executions).
func Alloc(addr unsafe.Pointer, size uintptr) { engine.Alloc(addr, size) }

// New registers the object p points to and returns p; the rewriter wraps
// new(T) and &T{...} in it.
func New[T any](p *T) *T { return engine.New(p) }

// Slice registers the backing array of s and returns s; the rewriter wraps
// make([]T, n) and append in it.
func Slice[T any](s []T) []T { return engine.Slice(s) }

// NewMap registers a map made by make and returns it; a map is one location.
func NewMap[M ~map[K]V, K comparable, V any](m M) M { return engine.NewMap(m) }

// MapAddr returns the location that stands for the whole map m.
func MapAddr[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer { return engine.MapAddr(m) }

// Load returns *p as the running goroutine sees it: under TSO and PSO its
// newest buffered store to p, else memory. Under SC it is Read and *p. The
// rewriter calls it for the reads of shared variables under -memory tso|pso.
func Load[T any](p *T, pos Pos) T {
	// engine.Load's body, which a forwarder would put over the inliner's
	// budget: Load is the hottest hook under -memory tso|pso.
	if !engine.Hot.Load() {
		return *p
	}
	return engine.LoadHot(p, pos)
}

// Store stores v at p: under TSO and PSO into the goroutine's store buffer,
// under SC into memory after Write.
func Store[T any](p *T, v T, pos Pos) { engine.Store(p, v, pos) }

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
func Wrote[T any](p *T, pos Pos) { engine.Wrote(p, pos) }

// Fence drains the running goroutine's store buffers (MFENCE). Every
// synchronization operation does as much; tests call it directly.
func Fence() { engine.Fence() }

// AcquireFence is lockfree.AcquireFence: no effect on a store-buffer
// machine (loads are never reordered there).
func AcquireFence() { engine.AcquireFence() }

// ReleaseFence is lockfree.ReleaseFence: under PSO the running
// goroutine's stores buffered so far commit before its next store.
func ReleaseFence() { engine.ReleaseFence() }

// DrainBeforeForeignCall drains the running goroutine's store buffers
// (under -memory tso|pso) before a call into code that is not rewritten,
// which reads memory without seeing them.
func DrainBeforeForeignCall() { engine.DrainBeforeForeignCall() }

// Cold reports whether no access needs reporting now (the active
// execution has one goroutine, or there is none): the rewriter runs a
// statement that calls nothing as written when Cold, so that it tests the
// flag once, not at each of its accesses.
func Cold() bool { return atomic.LoadUint32(hotWord) == 0 }
