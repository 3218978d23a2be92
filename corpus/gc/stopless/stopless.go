// Package stopless is Stopless's copy phase (Pizlo et al. 2007) as Ugawa,
// Abe and Maeda model it (OOPSLA 2017, §4.1, Algorithm 1, Figs 3-5): the
// object is copied through an intermediate wide object whose field is a
// pair of a value and a status (IN_ORIGINAL, IN_WIDE, IN_COPY) updated
// with a double-word CAS; mutators never block.
//
// Variants: the original (no fences) and the fences the paper's three
// successive PSO-no counterexamples called for, before the flip (line 26),
// after installing the wide object's forwarding pointer (line 14), and
// after each to-space write (line 21): all three is "Stopless (for RMO)".
package stopless

import (
	"sync/atomic"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
	"github.com/xbtest/xbtest/lockfree"
)

// Variant is a set of collector fences.
type Variant int

const (
	Original     Variant = iota // Figs 4-5 as printed
	Fence26                     // a full fence before the flip
	Fence26And14                // and after installing the wide forwarding pointer
	ForRMO                      // and after each to-space write (line 21)
)

// Statuses of a wide field.
const (
	InOriginal int64 = iota
	InWide
	InCopy
)

// wide packs a value and a status in one word (Fig. 4's WIDE), so that one
// CAS updates both (CASW).
func wide(v, s int64) int64 { return s<<2 | v }
func value(x int64) int64   { return x & 3 }
func status(x int64) int64  { return x >> 2 }

// Object is one of the three copies: its header (the forwarding pointer)
// and its field (in the wide copy, a packed value and status).
type Object struct {
	Forward *Object //xbtest:racy Stopless's forwarding pointers: barriers and collector race on them by design
	Data    int64   //xbtest:racy Stopless's heap words: barriers and collector race on them by design
}

// Heap is Fig. 3's heap.
type Heap struct {
	copyphase.Asserts
	From, Wide, To Object
	Root           *Object //xbtest:racy the mutator's root, flipped by the collector
	variant        Variant
}

// New returns Fig. 3's initial heap. The wide and to-space forwarding
// pointers start at the from-space object on purpose, so that a barrier
// that uses one before the collector installs it is caught.
func New(v Variant) *Heap {
	h := &Heap{variant: v}
	h.From = Object{Forward: &h.From, Data: copyphase.Initial}
	h.Wide = Object{Forward: &h.From, Data: wide(copyphase.Uninitialised, InOriginal)}
	h.To = Object{Forward: &h.From, Data: copyphase.Uninitialised}
	h.Root = &h.From
	return h
}

// Collect is Fig. 4.
func (h *Heap) Collect() {
	copyphase.CASPointer(&h.From.Forward, &h.From, &h.Wide)
	x := wide(value(h.Wide.Data), InOriginal)
	y := wide(h.From.Data, InWide)
	atomic.CompareAndSwapInt64(&h.Wide.Data, x, y)
	h.Wide.Forward = &h.To // line 13
	if h.variant >= Fence26And14 {
		lockfree.Fence() // line 14
	}
	h.To.Forward = &h.To // line 15
	for {
		x := h.Wide.Data
		y := value(x)
		h.To.Data = y // line 20
		if h.variant == ForRMO {
			lockfree.Fence() // line 21
		}
		if atomic.CompareAndSwapInt64(&h.Wide.Data, x, wide(y, InCopy)) { // line 22
			break
		}
	}
	h.From.Forward = &h.To // line 25
	if h.variant >= Fence26 {
		lockfree.Fence() // line 26
	}
	h.Root = h.From.Forward // line 27: the flip
}

// Read is Fig. 5's read barrier.
func (h *Heap) Read() int64 {
	if h.Root != &h.From {
		h.Assert(h.To.Forward == &h.To, "read barrier (Fig. 5 line 21): the to-space forwarding pointer is not installed")
		return h.To.Data
	}
	switch h.From.Forward {
	case &h.Wide:
		x := h.Wide.Data
		switch status(x) {
		case InOriginal:
			return h.From.Data
		case InWide:
			return value(x)
		default:
			h.Assert(h.Wide.Forward == &h.To, "read barrier: the wide object's forwarding pointer is not installed")
			return h.To.Data
		}
	case &h.To:
		return h.To.Data
	}
	return h.From.Data
}

// Write is Fig. 5's write barrier.
func (h *Heap) Write(v int64) {
	if h.Root != &h.From {
		h.Assert(h.To.Forward == &h.To, "write barrier: the to-space forwarding pointer is not installed")
		h.To.Data = v
		return
	}
	copyphase.CASPointer(&h.From.Forward, &h.From, &h.Wide)
	if h.From.Forward != &h.Wide {
		h.To.Data = v
		return
	}
	for {
		x := h.Wide.Data
		if status(x) == InCopy {
			h.Assert(h.Wide.Forward == &h.To, "write barrier: the wide object's forwarding pointer is not installed")
			h.To.Data = v // line 36
			return
		}
		if atomic.CompareAndSwapInt64(&h.Wide.Data, x, wide(v, InWide)) {
			return
		}
	}
}

// Yieldpoint: Stopless needs no handshake.
func (h *Heap) Yieldpoint() {}
