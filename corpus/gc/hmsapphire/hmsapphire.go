// Package hmsapphire is Sapphire's copy phase (Hudson and Moss 2001,
// 2003) and its x86 version (Ritson et al. 2014) as Ugawa, Abe and Maeda
// model them (OOPSLA 2017, §4.4, Algorithm 5): from-space always holds
// the up-to-date value, so reads need no barrier; the write barrier writes
// from-space, then to-space; the collector copies a field and verifies
// that from-space did not change, up to MAX_CYCLES times, then falls back
// to LL/SC.
//
// The lines Algorithm 5 marks $ are "specified to be executed in order":
// as in the paper's model, full fences between them. x86-Sapphire has no
// LL/SC fallback and one fence in the copy loop. LL/SC is simulated with
// one word that packs the value with the version of the store that wrote
// it: every store writes a fresh version, so a store-conditional (a CAS
// of the word the load-linked read) succeeds exactly when no store to the
// address came between, as a reservation cleared by any store.
package hmsapphire

import (
	"sync/atomic"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
	"github.com/xbtest/xbtest/lockfree"
)

// Variant is the protocol.
type Variant int

const (
	Iteration       Variant = iota // the copy loop (MAX_CYCLES 2), fences at the $ lines
	LLSC                           // the LL/SC part alone (MAX_CYCLES 0)
	X86                            // x86-Sapphire: loop without LL/SC, a fence between oo[f] = vn and vo = o[f]
	X86FenceAfterVo                // x86-Sapphire with the fence after vo = o[f], as §4.4's text places it
)

// Object is one copy: its forwarding information (from-space to its
// copy) and its field. To-space's field packs the value with a version
// (LL/SC, see the package comment); from-space's is the plain value.
type Object struct {
	Forward *Object
	Data    int64 //xbtest:racy Sapphire's heap words: the mutator and the collector race on them by design
}

// The packed to-space word: the value in the low byte, the version of
// the store above it.
func pack(v, version int64) int64 { return version<<8 | v }
func unpack(w int64) int64        { return w & 0xff }

// Heap is the framework's heap for Sapphire.
type Heap struct {
	copyphase.Asserts
	From, To Object
	Root     *Object //xbtest:racy the mutator's root, flipped by the collector
	variant  Variant
	mutVer   int64 // versions of the mutator's to-space stores (odd)
	colVer   int64 // and of the collector's (even)
}

// New returns the heap before the copy.
func New(v Variant) *Heap {
	h := &Heap{variant: v, mutVer: 1, colVer: 2}
	h.From = Object{Forward: &h.To, Data: copyphase.Initial}
	h.To = Object{Forward: &h.To, Data: pack(copyphase.Uninitialised, 0)}
	h.Root = &h.From
	return h
}

// ordered is a fence between two $ lines (none in x86-Sapphire).
func (h *Heap) ordered() {
	if h.variant == Iteration || h.variant == LLSC {
		lockfree.Fence()
	}
}

// Collect copies the field, then flips the root.
func (h *Heap) Collect() {
	h.copyField()
	lockfree.Fence()
	h.Root = &h.To
}

func (h *Heap) copyField() {
	o, oo := &h.From, h.From.Forward
	cycles := 2
	switch h.variant {
	case LLSC:
		cycles = 0
	case X86, X86FenceAfterVo:
		cycles = -1 // no bound, no LL/SC
	}
	for i := 0; cycles < 0 || i < cycles; i++ {
		vn := o.Data
		h.ordered()
		oo.Data = pack(vn, h.colVer)
		h.colVer += 2
		h.ordered()
		if h.variant == X86 {
			lockfree.Fence()
		}
		vo := o.Data
		if h.variant == X86FenceAfterVo {
			lockfree.Fence()
		}
		if vo == vn {
			return
		}
	}
	if cycles < 0 {
		return
	}
	linked := oo.Data // LL
	h.ordered()
	vn := o.Data
	h.ordered()
	atomic.CompareAndSwapInt64(&oo.Data, linked, pack(vn, h.colVer)) // SC
	h.colVer += 2
}

// Read has no barrier: from-space is up to date until the flip.
func (h *Heap) Read() int64 {
	o := h.Root
	if o == &h.To {
		return unpack(o.Data)
	}
	return o.Data
}

// Write writes from-space, then to-space.
func (h *Heap) Write(v int64) {
	o := h.Root
	if o == &h.To {
		o.Data = pack(v, h.mutVer)
		h.mutVer += 2
		return
	}
	o.Data = v
	h.ordered()
	o.Forward.Data = pack(v, h.mutVer)
	h.mutVer += 2
}

// Yieldpoint: the copy phase needs no handshake.
func (h *Heap) Yieldpoint() {}
