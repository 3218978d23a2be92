package sched

// Names of memory across executions.
//
// Backing up by re-execution replays a prefix in a new execution, where the
// same heap object lives at another address. A read/write set kept in a
// branch is therefore stored in execution-independent names (CanonRW) and
// translated back when a later execution reaches the branch point. The
// engine does both translations (its heap index, package
// scheduler/internal/location);
// a strategy only stores, encodes and hands back CanonRWs.

// RegionKind says how a CanonAccess names its location.
type RegionKind uint8

const (
	RegionUnknown RegionKind = iota // memory with no name that survives re-execution
	RegionGlobal                    // a package-level variable: its address
	RegionHeap                      // a registered heap object: its HeapKey and an offset
)

// HeapKey names a heap object across executions of a common prefix: the
// creation index of the goroutine that allocated it and how many objects
// that goroutine had registered before.
type HeapKey struct{ Thread, Seq int32 }

// CanonAccess is an access named so that another execution can find it.
// It is comparable (the engine keys what it learnt about locks by it).
type CanonAccess struct {
	Kind  RegionKind
	Addr  uintptr // RegionGlobal: the address itself
	Key   HeapKey // RegionHeap
	Off   uintptr // RegionHeap: offset in the object
	Size  uintptr
	Write bool
}

// CanonRW is a block's read/write set in execution-independent form. It is
// immutable once built and shared by every branch that delays the block.
type CanonRW struct {
	Acc                []CanonAccess
	UnknownR, UnknownW bool
}
