// Package sapphirecopy is the copy step of Transactional Sapphire under
// x86-TSO (Ugawa & Jones, "Model Checking Transactional Sapphire", 2018,
// §1, Models 1-7, Algorithms 1 and 2): a collector copies one field of
// one object from fromspace to tospace while a mutator, which writes both
// copies (fromspace first, the Copy phase's write barrier), writes and
// reads it; then the collector flips and the mutator reads tospace.
//
// The property (§1.7): the mutator reads the value it wrote last.
//
// The collector copies either word by word with a CAS (Algorithm 1) or
// transactionally (Algorithm 2: copy every word, a memory barrier, verify
// that fromspace has not changed, else fall back to Algorithm 1); the
// STM copy without its barrier is the paper's NO_FENCE bug. The field is a
// one-word scalar, a two-word scalar or a reference.
//
// Heap words are plain Go loads and stores (they race by design:
// //xbtest:racy), the CAS is sync/atomic's, the MFENCE lockfree.Fence.
// Under xbtest -memory tso the plain stores go through store buffers,
// which is the x86-TSO machine of the paper's Models 6-7.
package sapphirecopy

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/lockfree"
)

// Kind is the field's type (the paper's default, DOUBLE_WORD, REFERENCE).
type Kind int

const (
	OneWord   Kind = iota // a single-word scalar
	TwoWord               // a two-word scalar, written as [x, 1-x]
	Reference             // NULL or a reference to the object itself
)

// Collector is a copying algorithm.
type Collector int

const (
	CAS        Collector = iota // Algorithm 1, word by word with a CAS
	STM                         // Algorithm 2 with its memory barrier
	STMNoFence                  // Algorithm 2 without it (NO_FENCE)
)

// Object is one copy of the object: a header-less field of one or two
// scalar words, or of one reference.
type Object struct {
	Words [2]uint64 //xbtest:racy Sapphire's heap words: the mutator and the collector race on them by design
	Ref   *Object   //xbtest:racy Sapphire's heap words: the mutator and the collector race on them by design
}

// Heap is the object's two copies and the phase flag.
type Heap struct {
	Kind       Kind
	From, To   Object
	Flipped    bool //xbtest:racy the flip: read by the mutator without synchronization, as in the paper
	collector  Collector
	fellBack   bool // the STM copy failed its verification
	lastX      int
	lastRef    *Object
	violations []string
}

// NewHeap returns a heap whose field holds 0 ([0, 1] for two words; NULL
// for a reference) in both copies, as after allocation.
func NewHeap(k Kind, c Collector) *Heap {
	h := &Heap{Kind: k, collector: c}
	if k == TwoWord {
		h.From.Words[1], h.To.Words[1] = 1, 1
	}
	return h
}

// words is the number of words of the field.
func (h *Heap) words() int {
	if h.Kind == TwoWord {
		return 2
	}
	return 1
}

// forward maps a reference to the object's other copy (FORWARD).
func (h *Heap) forward(r *Object) *Object {
	switch r {
	case &h.From:
		return &h.To
	case &h.To:
		return &h.From
	}
	return nil
}

// Collect copies the field and flips.
func (h *Heap) Collect() {
	switch h.collector {
	case CAS:
		h.copyObject()
	case STM, STMNoFence:
		h.copyObjectTransactional()
	}
	// SUCCESS (Model 4 lines 25-27): the barrier, then the flip.
	lockfree.Fence()
	h.Flipped = true
}

// copyObject is Algorithm 1 (Model 4) for every word of the field.
func (h *Heap) copyObject() {
	for i := range h.words() {
		if h.Kind == Reference {
			h.copyRef()
		} else {
			h.copyWord(i)
		}
	}
}

// copyWord copies scalar word i: until tospace holds fromspace's value,
// CAS it in; a failed CAS means the mutator wrote tospace meanwhile, with
// the newer value (the code of Model 4 and Algorithm 1; §1.4's prose has
// success and failure the other way round).
func (h *Heap) copyWord(i int) {
	p, q := &h.From.Words[i], &h.To.Words[i]
	for {
		current := *q
		to := *p
		if to == current {
			return
		}
		if !atomic.CompareAndSwapUint64(q, current, to) {
			return
		}
	}
}

// copyRef is copyWord for the reference field: the value copied is the
// fromspace reference forwarded.
func (h *Heap) copyRef() {
	p, q := &h.From.Ref, &h.To.Ref
	for {
		current := *q
		to := h.forward(*p)
		if to == current {
			return
		}
		if !atomic.CompareAndSwapPointer((*unsafe.Pointer)(unsafe.Pointer(q)), unsafe.Pointer(current), unsafe.Pointer(to)) {
			return
		}
	}
}

// copyObjectTransactional is Algorithm 2 (Model 5): copy, barrier,
// verify; on a mismatch copy again word by word with CAS.
func (h *Heap) copyObjectTransactional() {
	var buf *Object
	if h.Kind == Reference {
		buf = h.From.Ref
		h.To.Ref = h.forward(buf)
	} else {
		for i := range h.words() {
			h.To.Words[i] = h.From.Words[i]
		}
	}
	if h.collector != STMNoFence {
		lockfree.Fence() // Model 5 line 16: the tospace stores are visible before verification reads
	}
	ok := true
	if h.Kind == Reference {
		ok = h.From.Ref == buf
	} else {
		for i := range h.words() {
			if h.From.Words[i] != h.To.Words[i] {
				ok = false
				break
			}
		}
	}
	if !ok {
		h.fellBack = true
		h.copyObject()
	}
}

// Write is the mutator's write of x (0 or 1) through the Copy phase's
// write barrier: fromspace first, then tospace (Models 1-3).
func (h *Heap) Write(x int) {
	switch h.Kind {
	case OneWord:
		h.From.Words[0] = uint64(x)
		h.To.Words[0] = uint64(x)
	case TwoWord:
		h.From.Words[0] = uint64(x)
		h.From.Words[1] = uint64(1 - x)
		h.To.Words[0] = uint64(x)
		h.To.Words[1] = uint64(1 - x)
	case Reference:
		var r *Object
		if x == 1 {
			r = &h.From
		}
		h.lastRef = r
		h.From.Ref = r
		h.To.Ref = h.forward(r)
	}
	h.lastX = x
}

// Read is the mutator's read: fromspace before the flip, tospace after;
// it records a violation of the property, naming the value read and the
// value written last.
func (h *Heap) Read() {
	space, o := "fromspace", &h.From
	if h.Flipped {
		space, o = "tospace", &h.To
	}
	switch h.Kind {
	case OneWord:
		if v := o.Words[0]; v != uint64(h.lastX) {
			h.violate("read %d from %s, last wrote %d", v, space, h.lastX)
		}
	case TwoWord:
		w0 := o.Words[0]
		w1 := o.Words[1]
		if w0 != uint64(h.lastX) || w1 != uint64(1-h.lastX) {
			h.violate("read [%d %d] from %s, last wrote [%d %d]", w0, w1, space, h.lastX, 1-h.lastX)
		}
	case Reference:
		r := o.Ref
		if o == &h.To {
			r = h.forward(r) // back to the fromspace reference the mutator wrote
		}
		if r != h.lastRef {
			h.violate("read %s from %s, last wrote %s", h.name(r), space, h.name(h.lastRef))
		}
	}
}

func (h *Heap) name(r *Object) string {
	switch r {
	case nil:
		return "NULL"
	case &h.From:
		return "the object"
	}
	return "a tospace reference"
}

func (h *Heap) violate(format string, args ...any) {
	h.violations = append(h.violations, fmt.Sprintf(format, args...))
}

// Violations returns what the mutator read that it did not write last.
func (h *Heap) Violations() []string { return h.violations }

// FellBack reports whether the transactional copy fell back to CAS.
func (h *Heap) FellBack() bool { return h.fellBack }
