package phases

import (
	"fmt"
	"strings"
)

// The Copy→Flip phase change (§3, Algorithms 3–5, Models 12–13).
//
// Every replicated object has a fromspace and a tospace copy. In COPY the
// mutators use fromspace and the Copy barrier writes both replicas; in FLIP
// they use tospace and the Flip barrier forwards fromspace references. Type
// II goes COPY→PREFLIP1→PREFLIP2→FLIP, PREFLIP1 with the PreFlip barrier,
// and keeps the invariant "a tospace object never refers to a fromspace
// object". Type I omits PREFLIP1: a mutator still in COPY can write a
// fromspace reference into a tospace copy another mutator has published.

// Phases of §3.
const (
	Copy = iota
	PreFlip1
	PreFlip2
	Flip
)

// Addresses of §3's heap: two replicated objects, fromspace copies 0 and 1
// with tospace copies 2 and 3, and the non-replicated object 4 (the layout
// the paper's counterexample implies). Each copy has one field.
const (
	NReplicated = 2
	NCopies     = 2*NReplicated + 1
)

func inFromspace(a int) bool { return a < NReplicated }
func inTospace(a int) bool   { return a >= NReplicated && a < 2*NReplicated }

// forward is FORWARD: the other replica, or a itself when a is not
// replicated.
func forward(a int) int {
	switch {
	case inFromspace(a):
		return a + NReplicated
	case inTospace(a):
		return a - NReplicated
	}
	return a
}

// FlipHeap is the shared state of Models 12–13.
type FlipHeap struct {
	world
	field [NCopies]int
}

// NewFlipHeap makes the initial heap: every copy's field holds its own
// address (the paper does not model NULL).
func NewFlipHeap() *FlipHeap {
	h := &FlipHeap{}
	h.init("COPY", "PREFLIP1", "PREFLIP2", "FLIP")
	h.check = h.observe
	for a := range h.field {
		h.field[a] = a
	}
	return h
}

// Collector advances COPY→[PREFLIP1]→PREFLIP2→FLIP as in §2.
func (h *FlipHeap) Collector(typeII bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if typeII {
		h.advance(PreFlip1)
	}
	h.advance(PreFlip2)
	h.advance(Flip)
}

// observe is the observer: no tospace copy refers to fromspace.
func (h *FlipHeap) observe() {
	for i := range NReplicated {
		to := forward(i)
		if inFromspace(h.field[to]) {
			h.fail("tospace copy %d refers to fromspace copy %d", to, h.field[to])
		}
	}
}

// FlipMutator is one mutator of Model 12. Both roots start at fromspace
// copy 0.
type FlipMutator struct {
	h            *FlipHeap
	id           int
	root0, root1 int
}

// NewMutator makes mutator id.
func (h *FlipHeap) NewMutator(id int) *FlipMutator {
	return &FlipMutator{h: h, id: id}
}

// A FlipAction is one of Model 12's atomic alternatives other than the
// handshake.
type FlipAction func(m *FlipMutator) string

// Run runs the mutator's actions (see world.run).
func (m *FlipMutator) Run(actions ...FlipAction) {
	fs := make([]func() string, len(actions))
	for i, a := range actions {
		fs[i] = func() string { return a(m) }
	}
	m.h.run(m.id, fs...)
}

// Actions of Model 12.
var (
	// FlipRead01 is read(root0, root1); normalise().
	FlipRead01 FlipAction = func(m *FlipMutator) string {
		m.root1 = m.h.field[m.root0]
		s := fmt.Sprintf("root1 = %d.field = %d", m.root0, m.root1)
		m.normalise()
		return s
	}
	// FlipWrite00 is write(root0, root0).
	FlipWrite00 FlipAction = func(m *FlipMutator) string { return m.write(m.root0, m.root0) }
	// FlipWrite10 is write(root1, root0).
	FlipWrite10 FlipAction = func(m *FlipMutator) string { return m.write(m.root1, m.root0) }
)

// normalise swaps the roots so that root0 ≤ root1 (the paper's symmetry
// reduction).
func (m *FlipMutator) normalise() {
	if m.root0 > m.root1 {
		m.root0, m.root1 = m.root1, m.root0
	}
}

// write is p.field = q through the barrier of the mutator's phase, and
// returns what it wrote.
func (m *FlipMutator) write(p, q int) string {
	h := m.h
	what := fmt.Sprintf("write(%d, %d)", p, q)
	var w []string
	raw := func(p, q int) {
		h.field[p] = q
		w = append(w, fmt.Sprintf("%d.field = %d", p, q))
	}
	var barrier string
	switch h.mPhase[m.id] {
	case Copy: // Algorithm 3
		barrier = "Copy"
		raw(p, q)
		if inFromspace(p) {
			if inFromspace(q) {
				raw(forward(p), forward(q))
			} else {
				raw(forward(p), q)
			}
		}
	case PreFlip1: // Algorithm 5
		barrier = "PreFlip"
		if inFromspace(q) && inTospace(p) {
			q = forward(q)
		}
		raw(p, q)
		if inFromspace(p) || inTospace(p) {
			pp := forward(p)
			if inFromspace(q) || (inTospace(q) && inFromspace(pp)) {
				raw(pp, forward(q))
			} else {
				raw(pp, q)
			}
		}
	default: // PREFLIP2 and FLIP: Algorithm 4
		barrier = "Flip"
		if inFromspace(q) {
			q = forward(q)
		}
		raw(p, q)
		if inFromspace(p) || inTospace(p) {
			raw(forward(p), q)
		}
	}
	return fmt.Sprintf("%s, %s barrier: %s", what, barrier, strings.Join(w, ", "))
}
