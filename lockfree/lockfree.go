// Package lockfree spells the memory fences of weakly ordered hardware in
// Go, for lock-free code that is checked against hardware memory models
// (the copying-collector protocols of xbtest's corpus): a full fence, and
// the acquire and release fences of McSPIN (Ugawa, Abe and Maeda, OOPSLA
// 2017, Table 1).
//
// Go's memory model has no fences: its sync/atomic operations are
// sequentially consistent, and plain accesses that race have no ordering
// to speak of. So these are a model, not Go semantics. Compiled as plain
// Go each is a sequentially consistent atomic read-modify-write of a
// private word, a full fence on amd64 (LOCK XADD) and arm64 (LDADDAL), so
// the code builds and runs as ordinary Go. Under xbtest the rewriter
// replaces the calls by the scheduler's hooks of the same names
// (scheduler/internal/engine/fences.go), which give them their store-buffer meaning under
// -memory sc, tso and pso:
//
//	            sc     tso    pso
//	Fence       -      drain  drain
//	Release     -      -      drain
//	Acquire     -      -      -
//
// (drain: the goroutine's buffered stores commit before it goes on; loads
// are never reordered on these machines, so an acquire fence has nothing
// to order).
package lockfree

import "sync/atomic"

var word atomic.Uint32

// Fence orders every access before it before every access after it
// (x86 MFENCE, McSPIN_fence).
func Fence() { word.Add(1) }

// AcquireFence orders every read before it before every access after it
// (McSPIN_acq_fence).
func AcquireFence() { word.Add(1) }

// ReleaseFence orders every access before it before every write after it
// (McSPIN_rel_fence).
func ReleaseFence() { word.Add(1) }
