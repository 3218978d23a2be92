package phases

import "fmt"

// The NoGC→Mark phase change (§2, Models 8–11).
//
// In NOGC a mutator has no write barrier and allocates white; from PREMARK1
// on it has the insertion barrier (checkAndEnqueue); in PREMARK2 and MARK it
// also allocates black. Type II goes NOGC→PREMARK1→PREMARK2→MARK and keeps
// the strong tricolour invariant (no black object refers to a white one).
// Type I omits PREMARK1: one mutator may allocate black while another still
// writes without a barrier.

// Colour of an object.
type Colour int

const (
	NotAllocated Colour = iota
	White
	Grey
	Black
)

func (c Colour) String() string {
	return [...]string{"unallocated", "white", "grey", "black"}[c]
}

// Phases of §2.
const (
	NoGC = iota
	PreMark1
	PreMark2
	Mark
)

// NObjects bounds the heap as the paper does (N_OBJECTS ≤ 3); address 0
// is NULL.
const NObjects = 3

// MarkHeap is the shared state of Models 8–11.
type MarkHeap struct {
	world
	colour  [NObjects + 1]Colour
	slot    [NObjects + 1]int
	freePtr int
}

// NewMarkHeap makes the initial heap: object 1 allocated white, the target
// of every mutator's root0; free_ptr is 2 (the paper leaves both unstated).
func NewMarkHeap() *MarkHeap {
	h := &MarkHeap{freePtr: 2}
	h.init("NOGC", "PREMARK1", "PREMARK2", "MARK")
	h.check = h.observe
	h.colour[1] = White
	return h
}

// Collector is Model 10's collector: a soft handshake per phase. Type II
// has PREMARK1 between NOGC and PREMARK2; type I does not.
func (h *MarkHeap) Collector(typeII bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if typeII {
		h.advance(PreMark1)
	}
	h.advance(PreMark2)
	h.advance(Mark)
}

// observe is Model 11's observer: the strong tricolour invariant on every
// allocated object. Called with mu held.
func (h *MarkHeap) observe() {
	for i := 1; i <= NObjects; i++ {
		if s := h.slot[i]; h.colour[i] == Black && s != 0 && h.colour[s] == White {
			h.fail("black object %d refers to white object %d", i, s)
		}
	}
}

// MarkMutator is one mutator of Model 8, with its two roots.
type MarkMutator struct {
	h            *MarkHeap
	id           int
	root0, root1 int
}

// NewMutator makes mutator id, whose root0 refers to object 1.
func (h *MarkHeap) NewMutator(id int) *MarkMutator {
	return &MarkMutator{h: h, id: id, root0: 1}
}

// A MarkAction is one of Model 8's atomic alternatives other than the
// safepoint; it says what it did, or "" when its guard is false.
type MarkAction func(m *MarkMutator) string

// Run runs the mutator's actions (see world.run).
func (m *MarkMutator) Run(actions ...MarkAction) {
	fs := make([]func() string, len(actions))
	for i, a := range actions {
		fs[i] = func() string { return a(m) }
	}
	m.h.run(m.id, fs...)
}

// Actions of Model 8.
var (
	// Alloc1 is root1 = alloc().
	Alloc1 MarkAction = func(m *MarkMutator) string {
		if m.h.freePtr > NObjects { // IS_HEAP_FULL
			return ""
		}
		m.root1 = m.alloc()
		return fmt.Sprintf("root1 = alloc() = %d (%v)", m.root1, m.h.colour[m.root1])
	}
	// Write01 is write(root0, root1): root0.slot = root1.
	Write01 MarkAction = func(m *MarkMutator) string {
		if m.root0 == 0 {
			return ""
		}
		m.write(m.root0, m.root1)
		return fmt.Sprintf("%d.slot = %d", m.root0, m.root1)
	}
	// Read01 is read(root0, root1): root1 = root0.slot.
	Read01 MarkAction = func(m *MarkMutator) string {
		if m.root0 == 0 {
			return ""
		}
		m.root1 = m.h.slot[m.root0]
		return fmt.Sprintf("root1 = %d.slot = %d", m.root0, m.root1)
	}
	// Write10 is write(root1, root0): root1.slot = root0.
	Write10 MarkAction = func(m *MarkMutator) string {
		if m.root1 == 0 {
			return ""
		}
		m.write(m.root1, m.root0)
		return fmt.Sprintf("%d.slot = %d", m.root1, m.root0)
	}
)

// write is SLOT(p) = q and the barrier of the mutator's phase: none in
// NOGC, the insertion barrier (checkAndEnqueue) otherwise.
func (m *MarkMutator) write(p, q int) {
	h := m.h
	h.slot[p] = q
	if h.mPhase[m.id] != NoGC && q != 0 && h.colour[q] == White {
		h.colour[q] = Grey
	}
}

// alloc allocates white in NOGC and PREMARK1, black in PREMARK2 and MARK.
func (m *MarkMutator) alloc() int {
	h := m.h
	r := h.freePtr
	h.freePtr++
	if p := h.mPhase[m.id]; p == PreMark2 || p == Mark {
		h.colour[r] = Black
	} else {
		h.colour[r] = White
	}
	h.slot[r] = 0
	return r
}
