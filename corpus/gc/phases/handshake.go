// Package phases ports the two phase changes of Transactional Sapphire that
// Ugawa and Jones model-check with SPIN ("Model Checking Transactional
// Sapphire", 2018): NoGC→Mark (§2, Models 8–11, mark.go) and Copy→Flip
// (§3, Algorithms 3–5, Models 12–13, flip.go).
//
// The collector moves the mutators from one phase to the next by soft
// handshakes: it sets the global phase and waits until every mutator has
// caught up at a safepoint of its own. Mutators thus run in different
// phases for a while (a ragged phase change), and the barriers of adjacent
// phases must cooperate. The paper shows that one intermediate phase is not
// enough for either change (type I: a counterexample) and that two are
// (type II).
//
// The models are sequentially consistent: every Promela atomic{} region is
// a critical section of the world's one mutex, mu (where an atomic{}
// blocks, in the collector's wait for the mutators, it gives up its
// atomicity, and so does mu, in Cond.Wait). The observer process, which
// checks the invariant at any moment, is a check run at the end of every
// atomic region that changes the heap: every step that can break it.
//
// The bound: the paper's mutators choose among their actions forever; here
// each runs the few actions of the paper's counterexample, in every order
// against the collector and the other mutator, answering handshakes at its
// safepoints (before its first action and when it exits).
package phases

import (
	"fmt"
	"strings"
	"sync"
)

// NMutators is the paper's N_MUTATORS (§2 and §3).
const NMutators = 2

// world is what both models share: the lock standing for atomic{}, the
// global and per-mutator phases of the soft handshakes, the observer's
// verdict and a log of the steps.
type world struct {
	mu       sync.Mutex
	caughtUp *sync.Cond // signalled when the collector's handshake completes

	phaseName []string
	gPhase    int
	mPhase    [NMutators]int
	exited    [NMutators]bool // an exited mutator answers no handshake

	check     func() // the observer, run after every action
	violation string
	log       []string
}

func (w *world) init(phaseName ...string) {
	w.caughtUp = sync.NewCond(&w.mu)
	w.phaseName = phaseName
}

func (w *world) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...))
}

// fail records the observer's first violation with the steps before it.
func (w *world) fail(format string, args ...any) {
	if w.violation == "" {
		w.violation = fmt.Sprintf(format, args...) + "; steps: " + strings.Join(w.log, "; ")
	}
}

// Violation returns the first violation the observer saw, or "".
func (w *world) Violation() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.violation
}

// advance is the collector's phase change: set the global phase, then
// waitForMutators. Called with mu held.
func (w *world) advance(p int) {
	w.gPhase = p
	w.logf("collector: %s", w.phaseName[p])
	for !w.caughtUpAll() {
		w.caughtUp.Wait()
	}
}

func (w *world) caughtUpAll() bool {
	for i := range w.mPhase {
		if !w.exited[i] && w.mPhase[i] != w.gPhase {
			return false
		}
	}
	return true
}

// answer is a mutator's safepoint (the first alternative of Models 8 and
// 12): it catches up with the global phase if it is behind. Called with mu
// held.
func (w *world) answer(id int) {
	if w.mPhase[id] == w.gPhase {
		return
	}
	w.mPhase[id] = w.gPhase
	w.logf("M%d answers: %s", id, w.phaseName[w.gPhase])
	if w.caughtUpAll() {
		w.caughtUp.Signal()
	}
}

// run is a mutator: a safepoint, the actions in order, each one atomic, and
// its exit (a mutator that has exited answers no more handshakes). A
// mutator answers only at its safepoints, as compiled code polls at method
// entries and loop back-edges, not between two field accesses: it may run
// its actions in a phase the collector has already left.
func (w *world) run(id int, actions ...func() string) {
	w.mu.Lock()
	w.answer(id)
	w.mu.Unlock()
	for _, a := range actions {
		w.mu.Lock()
		if s := a(); s != "" {
			w.logf("M%d (%s): %s", id, w.phaseName[w.mPhase[id]], s)
			w.check()
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.exited[id] = true
	if w.caughtUpAll() {
		w.caughtUp.Signal()
	}
	w.mu.Unlock()
}
