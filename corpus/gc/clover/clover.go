// Package clover is Clover's copy phase (Pizlo et al. 2008) as Ugawa, Abe
// and Maeda model it (OOPSLA 2017, §4.3, Algorithm 4 and Fig. 8): the
// collector copies a field into the pre-initialised to-space copy and
// then CASes a marker value alpha into the from-space field; a reader that
// sees alpha follows the forwarding pointer; a mutator that writes alpha
// waits until the copy phase ends.
//
// Variants: the original (Original), the paper's fix of the corner case
// it found (Fix: skip a field that already holds alpha), and the fix with
// a full fence before the CAS (ForRMO), each for alpha 0, 1 and 2.
package clover

import (
	"sync/atomic"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
	"github.com/xbtest/xbtest/lockfree"
)

// Variant is a version of the collector.
type Variant int

const (
	Original Variant = iota // Algorithm 4 without the # lines
	Fix                     // with them: a field already alpha is not copied
	ForRMO                  // Fix plus McSPIN_fence before the CAS (Fig. 8 line 10)
)

// Object is one copy: its forwarding pointer (header) and its field.
type Object struct {
	Forward *Object
	Data    int64 //xbtest:racy Clover's heap word: barriers and collector race on it by design
}

// Phases of the collector (Fig. 8 line 1).
const (
	Copy = iota
	Idle
)

// Heap is the framework's heap for Clover.
type Heap struct {
	copyphase.Asserts
	HS       copyphase.Handshake
	From, To Object
	Root     *Object //xbtest:racy the mutator's root, flipped by the collector
	Phase    int     //xbtest:racy Clover's phase, polled by a mutator that writes alpha
	alpha    int64
	variant  Variant
	done     chan struct{} // closed when the copy phase has ended
}

// New returns the heap before the copy: to-space allocated, forwarding
// pointer installed, its field pre-initialised to alpha.
func New(alpha int64, v Variant) *Heap {
	h := &Heap{alpha: alpha, variant: v, done: make(chan struct{})}
	h.From = Object{Forward: &h.To, Data: copyphase.Initial}
	h.To = Object{Forward: &h.To, Data: alpha}
	h.Root = &h.From
	h.Phase = Copy
	return h
}

// Collect copies the field (Fig. 8), flips the root and ends the phase.
func (h *Heap) Collect() {
	for {
		value := h.From.Data // line 7
		if h.variant != Original && value == h.alpha {
			break // lines 8, 13: already alpha (the fix)
		}
		h.To.Data = value // line 9
		if h.variant == ForRMO {
			lockfree.Fence() // line 10
		}
		if atomic.CompareAndSwapInt64(&h.From.Data, value, h.alpha) { // lines 11-12
			break
		}
	}
	h.Root = &h.To // line 15
	h.Phase = Idle // line 16
	h.HS.Soft()    // line 17
	close(h.done)
}

// Read is the read barrier: a field holding alpha has moved.
func (h *Heap) Read() int64 {
	o := h.Root
	value := o.Data
	if value == h.alpha {
		return o.Forward.Data
	}
	return value
}

// Write is the write barrier: writing alpha waits for the end of the
// copy phase; a field already alpha is written in to-space; otherwise
// the CAS installs v unless the collector's alpha got there first.
func (h *Heap) Write(v int64) {
	o := h.Root
	if v == h.alpha {
		h.waitUntilCopyingEnds()
	}
	for {
		old := o.Data
		if old == h.alpha {
			o.Forward.Data = v
			return
		}
		if atomic.CompareAndSwapInt64(&o.Data, old, v) {
			return
		}
	}
}

// waitUntilCopyingEnds polls the phase, answering handshakes (Fig. 8).
// The paper's loop runs its body at most once (§3.3); here the mutator
// answers a pending handshake once and then blocks until the collector
// has finished, instead of spinning.
func (h *Heap) waitUntilCopyingEnds() {
	if h.Phase != Idle {
		h.Yieldpoint()
		<-h.done
	}
}

// Yieldpoint answers a handshake (Clover's has no fence).
func (h *Heap) Yieldpoint() { h.HS.Yieldpoint() }
