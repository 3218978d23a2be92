// Package controls holds the five copying protocols of Ugawa, Abe and
// Maeda's §4.5 (OOPSLA 2017) that synchronize coarsely or need no
// synchronization: the negative controls of the copy-phase corpus, which
// pass in every model the paper checked. The paper only sketches their
// models (its appendix is not in the text we have); these follow the
// sketches:
//
//   - Baker (Halstead 1985): the collector copies the root-referenced
//     object atomically at the start of the collection, so the GC is one
//     atomic step against the mutator's barriers;
//   - Replication (Nettles and O'Toole): the mutator writes from-space and
//     logs the write in a mutation log; the collector copies, then, in one
//     atomic step with the log, applies it to to-space and flips;
//   - Compressor (Kermany and Petrank): to-space is protected (a shared
//     flag standing for page protection) until its contents are copied;
//     a mutator that touches a protected page traps, and the trap handler
//     copies the page under the collector's lock;
//   - Pauseless (Azul): as Compressor, with the roots flipped atomically;
//   - Schism (Pizlo et al. 2010): only the spine moves, and it is
//     immutable; the field lives in an arraylet that never moves.
//
// "Atomic" is a critical section of the heap's mutex, which the barriers
// also take: an atomic step of the collector then runs only while the
// mutator is between barriers, at a yieldpoint (the paper cuts the other
// paths, §4.5).
package controls

import (
	"sync"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
	"github.com/xbtest/xbtest/lockfree"
)

// Object is one copy: its field.
type Object struct {
	Data int64
}

// Baker is Baker's collector.
type Baker struct {
	copyphase.Asserts
	mu       sync.Mutex
	From, To Object
	Root     *Object
}

// NewBaker returns the heap before the collection.
func NewBaker() *Baker {
	h := &Baker{}
	h.From.Data, h.To.Data = copyphase.Initial, copyphase.Uninitialised
	h.Root = &h.From
	return h
}

// Collect copies the object and flips the root in one atomic step.
func (h *Baker) Collect() {
	h.mu.Lock()
	h.To.Data = h.From.Data
	h.Root = &h.To
	h.mu.Unlock()
}

func (h *Baker) Read() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Root.Data
}

func (h *Baker) Write(v int64) {
	h.mu.Lock()
	h.Root.Data = v
	h.mu.Unlock()
}

func (h *Baker) Yieldpoint() {}

// Replication is replication GC.
type Replication struct {
	copyphase.Asserts
	mu       sync.Mutex
	From, To Object
	Root     *Object
	log      []int64 // the mutation log: values written to from-space
}

// NewReplication returns the heap before the collection.
func NewReplication() *Replication {
	h := &Replication{}
	h.From.Data, h.To.Data = copyphase.Initial, copyphase.Uninitialised
	h.Root = &h.From
	return h
}

// Collect copies from-space (a snapshot, under the log's lock), then
// applies the log and flips in one atomic step.
func (h *Replication) Collect() {
	h.mu.Lock()
	v := h.From.Data
	h.log = h.log[:0]
	h.mu.Unlock()
	h.To.Data = v
	h.mu.Lock()
	for _, w := range h.log {
		h.To.Data = w
	}
	h.Root = &h.To
	h.mu.Unlock()
}

func (h *Replication) Read() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Root.Data
}

// Write writes the object the root names and, before the flip, logs it.
func (h *Replication) Write(v int64) {
	h.mu.Lock()
	o := h.Root
	o.Data = v
	if o == &h.From {
		h.log = append(h.log, v)
	}
	h.mu.Unlock()
}

func (h *Replication) Yieldpoint() {}

// Compressor is Compressor's copy phase (and Pauseless's, whose roots
// are flipped atomically too).
type Compressor struct {
	copyphase.Asserts
	mu        sync.Mutex
	From, To  Object
	Root      *Object
	Protected bool // to-space's page is protected until copied
}

// NewCompressor returns the heap before the collection.
func NewCompressor() *Compressor {
	h := &Compressor{}
	h.From.Data, h.To.Data = copyphase.Initial, copyphase.Uninitialised
	h.Root = &h.From
	return h
}

// Collect protects to-space and flips the roots atomically, then copies
// the page unless a trap copied it first.
func (h *Compressor) Collect() {
	h.mu.Lock()
	h.Protected = true
	h.Root = &h.To
	h.mu.Unlock()
	h.mu.Lock()
	h.copyPage()
	h.mu.Unlock()
}

// copyPage copies the protected page and unprotects it (mu held).
func (h *Compressor) copyPage() {
	if h.Protected {
		h.To.Data = h.From.Data
		h.Protected = false
	}
}

// access is the trap: a mutator that touches a protected page copies it.
func (h *Compressor) access() *Object {
	h.mu.Lock()
	o := h.Root
	if o == &h.To {
		h.copyPage()
	}
	return o
}

func (h *Compressor) Read() int64 {
	o := h.access()
	defer h.mu.Unlock()
	return o.Data
}

func (h *Compressor) Write(v int64) {
	o := h.access()
	o.Data = v
	h.mu.Unlock()
}

func (h *Compressor) Yieldpoint() {}

// NewPauseless returns Pauseless's heap: the same model as Compressor's
// (page protection as a flag, the roots flipped atomically), the one
// §4.5 sketches for both.
func NewPauseless() *Compressor { return NewCompressor() }

// Spine is Schism's immutable spine: it points to the arraylet.
type Spine struct {
	Arraylet *Object //xbtest:racy a new spine's pointer, read by the mutator without synchronization after the publication
}

// Schism is Schism's copy of a spine.
type Schism struct {
	copyphase.Asserts
	arraylet Object
	From, To Spine
	Root     *Spine //xbtest:racy the mutator's root, flipped by the collector
}

// NewSchism returns the heap before the collection.
func NewSchism() *Schism {
	h := &Schism{}
	h.arraylet.Data = copyphase.Initial
	h.From.Arraylet = &h.arraylet
	h.Root = &h.From
	return h
}

// Collect copies the spine and publishes the copy. The new spine is
// initialised before it is published (a fence, as the allocation of an
// immutable object has), so a mutator never sees it uninitialised.
func (h *Schism) Collect() {
	h.To.Arraylet = h.From.Arraylet
	lockfree.Fence()
	h.Root = &h.To
}

func (h *Schism) Read() int64   { return h.Root.Arraylet.Data }
func (h *Schism) Write(v int64) { h.Root.Arraylet.Data = v }
func (h *Schism) Yieldpoint()   {}
