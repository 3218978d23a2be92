// Package copyphase is the common framework of the copy-phase protocols
// that Ugawa, Abe and Maeda model-check under SC, TSO, PSO and RMO
// ("Model Checking Copy Phases of Concurrent Copying Garbage Collection
// with Various Memory Models", OOPSLA 2017, §3.2): one mutator and one
// collector, one object with a from-space copy and a to-space copy (each
// a payload word and a header), the mutator's root, which the collector
// flips, and the mutator scenarios WR and RW (Fig. 2).
//
// The property (§2): the value the mutator reads from the field is the
// value it wrote last, or the initial value if it wrote none. A barrier's
// internal assertion (a forwarding pointer that must be installed) counts
// too.
//
// Each protocol is a package of its own beside this one (clover,
// stopless, chicken, staccato, hmsapphire, and the negative controls of
// §4.5); package lockfree spells the paper's fences, -cas relaxed its CAS
// without a memory barrier (PSO-no).
package copyphase

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/lockfree"
)

// The paper's values (§3.2): the field's initial value, the value of a
// to-space field the collector has not copied, and what the mutator
// writes.
const (
	Initial       int64 = 0
	Uninitialised int64 = 2
	Written       int64 = 1
)

// Protocol is one copy-phase protocol on one object: the collector's copy
// (which ends with the flip of the root), the barriers and the yieldpoint.
type Protocol interface {
	Collect()
	Read() int64   // the read barrier on the mutator's root
	Write(v int64) // the write barrier on the mutator's root
	Yieldpoint()
	Violations() []string // the barriers' failed internal assertions
}

// Scenario is a mutator of Fig. 2.
type Scenario int

const (
	WR Scenario = iota // write 1, then read: expect 1
	RW                 // read, then write 1: expect the initial value
)

func (s Scenario) String() string { return [...]string{"WR", "RW"}[s] }

// Run runs p's collector and the mutator's scenario s concurrently, and
// returns what the mutator read and what it should have read. As in Fig.
// 2, two yieldpoints come before the first operation and two between the
// operations (Staccato needs two handshakes).
func Run(p Protocol, s Scenario) (got, want int64) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.Collect() }()
	go func() {
		defer wg.Done()
		p.Yieldpoint()
		p.Yieldpoint()
		if s == WR {
			p.Write(Written)
			want = Written
		} else {
			got = p.Read()
			want = Initial
		}
		p.Yieldpoint()
		p.Yieldpoint()
		if s == WR {
			got = p.Read()
		} else {
			p.Write(Written)
		}
	}()
	wg.Wait()
	return got, want
}

// Asserts collects the failed internal assertions of barriers (the
// paper's ASSERT_EQ); protocols embed it.
type Asserts struct {
	failed []string
}

// Assert records a failure unless ok.
func (a *Asserts) Assert(ok bool, format string, args ...any) {
	if !ok {
		a.failed = append(a.failed, fmt.Sprintf(format, args...))
	}
}

// Violations returns the failed assertions.
func (a *Asserts) Violations() []string { return a.failed }

// Fence is the fence of a mutator's answer to a soft handshake.
type Fence int

const (
	NoFence      Fence = iota // Clover's yieldpoint (Fig. 8)
	AcquireFence              // Fig. 7 as modelled: McSPIN_acq_fence
	FullFence                 // Staccato fixed with a full fence
	ReleaseFence              // Staccato fixed with McSPIN_rel_fence
)

// Handshake is the soft handshake of Fig. 7: the collector raises a
// request flag and waits until the mutator, at a yieldpoint, lowers it.
type Handshake struct {
	Req   bool //xbtest:racy the soft handshake's flag, a plain word as in Fig. 7
	Fence Fence
}

// Soft is the collector's side. The paper's model checks the wait loop
// with a backward-jump budget of 0 (§3.3): the flag is tested once, and a
// path on which the mutator has not answered by then is cut. Here such a
// path ends the collector's cycle instead: Soft reports false and the
// protocol abandons the copy, which each protocol tolerates (the mutator
// keeps using the from-space object), so no failure is invented, and the
// paths the paper checks are all explored.
func (h *Handshake) Soft() bool {
	h.Req = true
	return !h.Req
}

// Yieldpoint is the mutator's side: answer a pending request, after the
// fence.
func (h *Handshake) Yieldpoint() {
	if h.Req {
		switch h.Fence {
		case AcquireFence:
			lockfree.AcquireFence()
		case FullFence:
			lockfree.Fence()
		case ReleaseFence:
			lockfree.ReleaseFence()
		}
		h.Req = false
	}
}

// CASPointer is a compare-and-swap of a pointer word (a forwarding
// pointer): sync/atomic's on the word's address.
func CASPointer[T any](p **T, old, new *T) bool {
	return atomic.CompareAndSwapPointer((*unsafe.Pointer)(unsafe.Pointer(p)), unsafe.Pointer(old), unsafe.Pointer(new))
}
