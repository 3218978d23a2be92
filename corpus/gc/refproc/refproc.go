// Package refproc ports the reference-object (weak reference) processing of
// Transactional Sapphire (Ugawa & Jones, "Model Checking Transactional
// Sapphire", 2018, §4, Algorithms 6–8, Model 14).
//
// Three weak references r0, r1, r2, always strongly reachable, refer to o0,
// o1, o2, which are linked in a list (o0.next = o1, o1.next = o2) and have
// no other strong references. A mutator calls get on the references, loads
// next, and drops its one local x (Algorithm 8). The collector traces;
// when it believes tracing is complete it tries CAS(refState, TRACING,
// CLEARING), after which every unmarked referent is logically cleared; a get
// that meets a white referent while TRACING sets REPEAT, which makes the
// collector trace again. Handshakes in the TRACING loop flush gets in
// progress: a mutator cannot answer one while it is inside get.
//
// The paper's properties, checked after every step of every process:
//
//   - P1 (Safety): the mutator never sees a reclaimed object: x ≠ NULL ⇒
//     mark[x] ≠ RECLAIMED; and get's asserts in CLEARING (the referent is
//     neither reclaimed nor grey).
//   - P2 (Consistency): once get on r_i returned null, x ≠ o_i.
//   - P3 (Termination): the collector's TRACING loop must make progress. At
//     the top of each iteration the collector compares the state
//     (colours, cleared references, x and where the mutator is: between
//     cases of Algorithm 8 or inside a get, having read what) with the
//     state at the top of every earlier iteration. If it is the same, the
//     mutator, which may choose the same cases again, can make the loop
//     repeat forever: the lasso SPIN's non-progress check finds. (Such a
//     path is not explored further: from a repeated state there is nothing
//     new to see. That also bounds every exploration.)
//
// Results of the paper: with the deletion barrier (Algorithms 6b, 7b) P1,
// P2 and P3 hold; with the insertion barrier (6a, 7a) P3 fails: a mutator
// that gets a white referent (REPEAT) and drops it before the collector
// scans its roots makes an iteration change nothing. Without the handshake
// in the TRACING loop a get in flight crosses TRACING→CLEARING (§4.1's
// argument for the handshake): P1 fails; and a get that keeps meeting
// TRACING, set again by each iteration, keeps the loop going: P3 fails too.
//
// The collector sets TRACING when the collection starts, as §4.1 says
// ("When a collection is triggered, the collector starts TRACING"), and
// again at the top of each iteration, as Algorithm 6 does. Read literally,
// Algorithm 6b leaves refState NORMAL until its loop, after the root scan
// that makes the mutators black; a get then returns a white referent
// unshaded (case NORMAL), and P1 fails (o1 reclaimed under a mutator that
// got o0 and loaded o0.next): TestDeletionAsPrinted.
//
// Every Promela atomic step is a critical section of the one mutex, mu. As
// in Model 14, get is not atomic: its do-loop reads refState in one step and
// runs the branch in the next. The collector's trace, root scan, clearing
// and reclaiming are one step each (only the collector changes colours
// then, but for get's shading, which is one step too).
package refproc

import (
	"fmt"
	"strings"
	"sync"
)

// Colour is mark[i] of an object o_i.
type Colour int

const (
	White Colour = iota
	Grey
	Black
	Reclaimed
)

func (c Colour) String() string { return [...]string{"white", "grey", "black", "reclaimed"}[c] }

// RefState is the global reference-processing state.
type RefState int

const (
	Normal RefState = iota
	Tracing
	Repeat
	Clearing
)

func (s RefState) String() string { return [...]string{"NORMAL", "TRACING", "REPEAT", "CLEARING"}[s] }

// Barrier chooses the collector: Algorithms 6a/7a or 6b/7b.
type Barrier int

const (
	Insertion Barrier = iota
	Deletion
)

// N is the number of references and referents (Fig. 1).
const N = 3

// Null is the value of a null x.
const Null = -1

// next is the list o0 → o1 → o2.
var next = [N]int{1, 2, Null}

// World is the model's shared state.
type World struct {
	mu      sync.Mutex // every atomic step
	request *sync.Cond // the collector requested a handshake
	answer  *sync.Cond // the mutator answered it

	barrier          Barrier
	loopHandshake    bool // the handshake in the TRACING loop (Algorithm 6, line 9)
	tracingAtStart   bool // refState ← TRACING when the collection starts
	refState         RefState
	mark             [N]Colour
	reference        [N]bool // r_i still refers to o_i
	x                int     // the mutator's local
	returnedNull     [N]bool // get on r_i has returned null (P2)
	requested, acked int     // handshakes requested by the collector, answered by the mutator
	iteration        int
	seen             map[string]int // the state at the top of each iteration
	where            string         // where the mutator is (for P3's state)
	done             bool           // the collection is over

	violations map[string]string // the first violation of each property
	log        []string
}

// Config chooses the collector.
type Config struct {
	Barrier Barrier
	// NoLoopHandshake drops the handshake of the TRACING loop.
	NoLoopHandshake bool
	// AsPrinted leaves refState NORMAL until the loop, as Algorithm 6
	// is printed.
	AsPrinted bool
}

// NewWorld makes the initial state: every referent white and referred to,
// refState NORMAL, x null.
func NewWorld(c Config) *World {
	w := &World{barrier: c.Barrier, loopHandshake: !c.NoLoopHandshake, tracingAtStart: !c.AsPrinted,
		x: Null, seen: map[string]int{}, violations: map[string]string{}, where: "between cases"}
	w.request = sync.NewCond(&w.mu)
	w.answer = sync.NewCond(&w.mu)
	for i := range N {
		w.reference[i] = true
	}
	return w
}

func (w *World) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...))
}

// fail records the first violation of property p.
func (w *World) fail(p, format string, args ...any) {
	if w.violations[p] == "" {
		w.violations[p] = p + ": " + fmt.Sprintf(format, args...) + "; steps: " + strings.Join(w.log, "; ")
	}
}

// Violation returns the first violation of property p ("P1", "P2", "P3")
// seen, or "".
func (w *World) Violation(p string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.violations[p]
}

// check is the observer of P1 and P2, run at the end of every step.
func (w *World) check() {
	if w.x != Null && w.mark[w.x] == Reclaimed {
		w.fail("P1", "the mutator sees reclaimed o%d", w.x)
	}
	if w.x != Null && w.returnedNull[w.x] {
		w.fail("P2", "the mutator sees o%d after get on r%d returned null", w.x, w.x)
	}
}

// step runs f as one atomic step and checks P1 and P2 after it.
func (w *World) step(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	w.check()
}

// state is what a lasso must repeat: colours, references, x and where the
// mutator is.
func (w *World) state() string {
	return fmt.Sprintf("marks %v, references %v, x = %s, mutator %s", w.mark, w.reference, obj(w.x), w.where)
}

func obj(i int) string {
	if i == Null {
		return "null"
	}
	return fmt.Sprintf("o%d", i)
}

// Collector is Algorithm 6a or 6b. Each numbered comment is one atomic
// step.
func (w *World) Collector() {
	// 1: a collection is triggered: the collector starts TRACING (§4.1;
	// Algorithm 6 as printed sets it only at the top of each loop
	// iteration: AsPrinted), transitiveClosureFromRoot, and, with the
	// deletion barrier, deletionBarrier ← ON.
	w.step(func() {
		if w.tracingAtStart {
			w.refState = Tracing
		}
		w.logf("collector: %v, trace from roots", w.refState)
		w.scanRoot()
		w.trace()
	})
	if w.barrier == Deletion {
		w.handshake() // 2
		// 3: scanRoot; insertionBarrier ← OFF.
		w.step(func() { w.logf("collector: scan roots"); w.scanRoot() })
	}
	for {
		// 4: refState ← TRACING; handshake.
		repeated := false
		w.step(func() {
			w.iteration++
			w.refState = Tracing
			st := w.state()
			w.logf("collector: loop %d, %v (%s)", w.iteration, w.refState, st)
			if k, ok := w.seen[st]; ok {
				w.fail("P3", "the TRACING loop need not terminate: iteration %d starts in the state of iteration %d (%s), and the mutator can repeat what it did in between forever", w.iteration, k, st)
				// Nothing new follows a repeated state: give up.
				repeated = true
				w.refState = Normal
				w.done = true
				w.request.Signal()
				return
			}
			w.seen[st] = w.iteration
		})
		if repeated {
			return
		}
		if w.loopHandshake {
			w.handshake()
		}
		// 5: transitiveClosureNoRootScan, and with the insertion
		// barrier scanRoot (whose grey objects the next iteration
		// traces).
		w.step(func() {
			w.trace()
			if w.barrier == Insertion {
				w.scanRoot()
			}
			w.logf("collector: traced, marks %v", w.mark)
		})
		// 6: if workQueue.empty() && CAS(refState, TRACING, CLEARING) break.
		var cleared bool
		w.step(func() {
			if w.greys() == 0 && w.refState == Tracing {
				w.refState = Clearing
				cleared = true
			}
			w.logf("collector: CAS(TRACING→CLEARING) %v", cleared)
		})
		if cleared {
			break
		}
	}
	// 7: barrier ← OFF; clearReferences; refState ← NORMAL; handshake.
	w.step(func() {
		for i := range N {
			if w.reference[i] && w.mark[i] == White {
				w.reference[i] = false
			}
		}
		w.refState = Normal
		w.logf("collector: cleared, references %v, %v", w.reference, w.refState)
	})
	w.handshake()
	// 8: reclaim: white objects are reclaimed, black ones turn white.
	w.step(func() {
		for i := range N {
			switch w.mark[i] {
			case White:
				w.mark[i] = Reclaimed
			case Black, Grey:
				w.mark[i] = White
			}
		}
		w.done = true
		w.logf("collector: reclaimed, marks %v", w.mark)
		w.request.Signal()
	})
}

// scanRoot shades the mutator's x.
func (w *World) scanRoot() {
	if w.x != Null && w.mark[w.x] == White {
		w.mark[w.x] = Grey
	}
}

// trace blackens every grey object and shades what it refers to, until no
// grey object is left (the work queue is the set of grey objects).
func (w *World) trace() {
	for w.greys() > 0 {
		for i := range N {
			if w.mark[i] == Grey {
				w.mark[i] = Black
				if n := next[i]; n != Null && w.mark[n] == White {
					w.mark[n] = Grey
				}
			}
		}
	}
}

func (w *World) greys() int {
	n := 0
	for _, c := range w.mark {
		if c == Grey {
			n++
		}
	}
	return n
}

// handshake requests a handshake and waits for the mutator's answer.
func (w *World) handshake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requested++
	w.request.Signal()
	for w.acked != w.requested {
		w.answer.Wait()
	}
}

// safepoint answers a pending handshake. Called with mu held.
func (w *World) safepoint() {
	if w.acked == w.requested {
		return
	}
	w.acked = w.requested
	w.logf("mutator answers the handshake")
	w.answer.Signal()
}

// An Action is one case of Algorithm 8.
type Action func(w *World)

// Get is x = vr_i.get().
func Get(i int) Action { return func(w *World) { w.get(i) } }

// Next is "if (x ≠ null) x = x.next".
func Next(w *World) {
	w.step(func() {
		if w.x != Null {
			w.x = next[w.x]
			w.logf("mutator: x = x.next = %s", obj(w.x))
		}
	})
}

// Drop is x = null.
func Drop(w *World) {
	w.step(func() {
		w.x = Null
		w.logf("mutator: x = null")
	})
}

// get is Model 14's getReferent (Algorithm 7a or 7b): a do-loop whose
// guards read refState in one step, each branch running in the next.
func (w *World) get(i int) {
	for {
		var s RefState
		w.step(func() {
			s = w.refState
			w.where = fmt.Sprintf("in r%d.get(), having read %v", i, s)
		})
		ret, done := 0, true
		w.step(func() {
			switch {
			case !w.reference[i]:
				ret = Null
			case s == Normal:
				ret = i
			case s == Repeat:
				if w.barrier == Deletion && w.mark[i] == White {
					w.mark[i] = Grey
				}
				ret = i
			case s == Tracing:
				if w.mark[i] != White {
					ret = i
				} else {
					if w.refState == Tracing { // CAS(refState, TRACING, REPEAT)
						w.refState = Repeat
					}
					done = false // retry
				}
			case s == Clearing:
				if w.mark[i] == Reclaimed {
					w.fail("P1", "get on r%d in CLEARING meets reclaimed o%d", i, i)
				}
				if w.mark[i] == Grey {
					w.fail("P1", "get on r%d in CLEARING meets grey o%d", i, i)
				}
				if w.mark[i] == White {
					ret = Null
				} else {
					ret = i
				}
			}
			if done {
				w.where = "between cases"
				w.x = ret
				if ret == Null {
					w.returnedNull[i] = true
				}
				w.logf("mutator: x = r%d.get() = %s (read %v, now %v, marks %v)", i, obj(ret), s, w.refState, w.mark)
			} else {
				w.where = fmt.Sprintf("in r%d.get(), to retry", i)
				w.logf("mutator: r%d.get() meets white o%d in %v: REPEAT, retry", i, i, s)
			}
		})
		if done {
			return
		}
	}
}

// Mutator runs Algorithm 8 with the given cases in order: a safepoint
// before the first, none between them (a mutator does not answer a
// handshake inside get, and here not between its cases either); then it
// stays, x still a root, and answers handshakes at its safepoint until the
// collection is over.
func (w *World) Mutator(actions ...Action) {
	w.step(w.safepoint)
	for _, a := range actions {
		a(w)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		w.safepoint()
		w.check()
		if w.done {
			return
		}
		w.request.Wait()
	}
}
