// Package chicken is the copy phase of Chicken (Pizlo et al. 2008) and of
// Staccato (McCloskey et al. 2008) as Ugawa, Abe and Maeda model them
// (OOPSLA 2017, §4.2, Algorithms 2 and 3): the collector marks the object
// COPYING, waits for a soft handshake, copies, and commits the copy with
// a CAS on the forwarding pointer; a mutator that finds the object COPYING
// aborts the copy with a CAS before writing (Staccato: before reading
// too). Staccato is Chicken plus the lines marked # in Algorithm 2: the
// COPYING flag set by CAS, a read synchronization after the first
// handshake, a write synchronization and a second handshake before the
// commit, and Algorithm 3's access barrier for reads and writes.
//
// The forwarding pointer with its COPYING bit is a pointer to an immutable
// descriptor (the object forwarded to, and the bit): one word, so one CAS
// compares both, as a tagged pointer does.
package chicken

import (
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
	"github.com/xbtest/xbtest/lockfree"
)

// Variant is the protocol and its fix.
type Variant int

const (
	Chicken                  Variant = iota // Algorithm 2 without the # lines
	ChickenFenceAfterForward                // plus a fence after oo.forward <- oo (§4.2.3's first repair)
	Staccato                                // with the # lines; the yieldpoint's fence an acquire fence (Fig. 7)
	StaccatoFixFence                        // the yieldpoint's fence a full fence
	StaccatoFixRelFence                     // the yieldpoint's fence a release fence
)

func (v Variant) staccato() bool { return v >= Staccato }

// Forward is a forwarding pointer's value: the object it forwards to and
// the COPYING bit.
type Forward struct {
	To      *Object
	Copying bool
}

// Object is one copy: its header (the forwarding word) and its field.
type Object struct {
	Forward *Forward //xbtest:racy the forwarding word: barriers and collector race on it by design
	Data    int64    //xbtest:racy the heap word: barriers and collector race on it by design
}

// Heap is the framework's heap for Chicken and Staccato.
type Heap struct {
	copyphase.Asserts
	HS       copyphase.Handshake
	From, To Object
	Root     *Object //xbtest:racy the mutator's root, flipped by the collector
	variant  Variant

	// The forwarding words' values: from-space forwarding to itself, the
	// same COPYING, and forwarding to to-space.
	fromIdle, fromCopying, toSpace *Forward
}

// New returns the heap before the copy. The to-space header starts
// forwarding to from-space, so that a mutator that reaches the copy
// before the collector installs its header reads from-space (and is
// caught if that is stale).
func New(v Variant) *Heap {
	h := &Heap{variant: v}
	h.fromIdle = &Forward{To: &h.From}
	h.fromCopying = &Forward{To: &h.From, Copying: true}
	h.toSpace = &Forward{To: &h.To}
	h.From = Object{Forward: h.fromIdle, Data: copyphase.Initial}
	h.To = Object{Forward: h.fromIdle, Data: copyphase.Uninitialised}
	h.Root = &h.From
	h.HS.Fence = copyphase.AcquireFence
	switch v {
	case StaccatoFixFence:
		h.HS.Fence = copyphase.FullFence
	case StaccatoFixRelFence:
		h.HS.Fence = copyphase.ReleaseFence
	}
	return h
}

func casForward(p **Forward, old, new *Forward) bool { return copyphase.CASPointer(p, old, new) }

// Collect is Algorithm 2's copy, then the flip of the root.
func (h *Heap) Collect() {
	// prepare
	if h.variant.staccato() {
		casForward(&h.From.Forward, h.fromIdle, h.fromCopying)
	} else {
		h.From.Forward = h.fromCopying
	}
	// sync
	if !h.HS.Soft() {
		return // the mutator did not answer: no copy this cycle (copyphase.Handshake)
	}
	if h.variant.staccato() {
		lockfree.AcquireFence() // ReadSync
	}
	// copy
	h.To.Data = h.From.Data
	h.To.Forward = h.toSpace
	if h.variant == ChickenFenceAfterForward {
		lockfree.Fence()
	}
	// sync
	if h.variant.staccato() {
		lockfree.ReleaseFence() // WriteSync
		if !h.HS.Soft() {
			return
		}
	}
	// commit: a mutator's write may have aborted the copy meanwhile
	if casForward(&h.From.Forward, h.fromCopying, h.toSpace) {
		h.Root = &h.To
	}
}

// access is Algorithm 3 (Staccato): the up-to-date version of o, aborting
// a copy in progress. Its last read is atomic.
func (h *Heap) access(o *Object) *Object {
	f := o.Forward
	if !f.Copying {
		return f.To
	}
	if casForward(&o.Forward, f, h.idle(o)) {
		return o
	}
	return (*Forward)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&o.Forward)))).To
}

// idle is o's forwarding word when it forwards to itself.
func (h *Heap) idle(o *Object) *Forward {
	if o == &h.From {
		return h.fromIdle
	}
	return h.toSpace
}

// Read is the read barrier.
func (h *Heap) Read() int64 {
	o := h.Root
	if h.variant.staccato() {
		return h.access(o).Data
	}
	return o.Forward.To.Data
}

// Write is the write barrier.
func (h *Heap) Write(v int64) {
	o := h.Root
	if h.variant.staccato() {
		h.access(o).Data = v
		return
	}
	if f := o.Forward; f.Copying {
		casForward(&o.Forward, f, h.idle(o))
	}
	o.Forward.To.Data = v
}

// Yieldpoint answers a handshake (Fig. 7).
func (h *Heap) Yieldpoint() { h.HS.Yieldpoint() }
