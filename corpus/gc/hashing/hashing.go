// Package hashing ports address-based hashing in Transactional Sapphire
// (Ugawa & Jones, "Model Checking Transactional Sapphire", 2018, §5, Table
// 1, Algorithms 9–10, Models 15–19).
//
// Sapphire uses an object's address as its hash code, and moves objects.
// An object is UNHASHED until hashCode is first called, then HASHED (the
// hash is its address); when the collector copies a HASHED object it
// stores the old address in the new copy's hashcode field and marks the
// copy MOVED. The collector copying an UNHASHED object races with a mutator
// hashing it: the copy is made UNHASHED, the mutator returns the fromspace
// address, and after the flip the tospace copy hashes to its own address.
// The fix is a meta-lock: a busy bit set by CAS on the header stops the
// collector copying it, and a header already copied (forwarded) is hashed
// in its tospace copy.
//
// Consistency, the property of §5: once some mutator's hashCode has
// returned v, every later hashCode of the object, by any mutator, returns v
// (□(hash = v ⇒ □ hash = v)). It is checked at every hashCode, by an
// observer at the end of each GC cycle (the hash code the next call would
// return) and by a last hashCode once every process is done.
//
// The model: one object with two addresses, 0 and 1, whose roles of
// fromspace and tospace swap every cycle; a collector running two whole GC
// cycles (Model 18) with a ragged handshake per phase (Model 19); a mutator
// (Model 15) that hashes the object through its root.
//
// The bound: the paper checks up to 3 mutators that hash forever. Here one
// mutator thread attaches at any moment of the two cycles (from then on
// the handshakes wait for it), hashes the object twice with a safepoint in
// between and detaches: every placement of two calls within a phase or
// across a phase change, in either cycle. Without state matching every
// further call or mutator multiplies the schedules: one mutator with three
// calls is 44,168 schedules (2 s); two mutators of one call each did not
// finish in 60 s (over 1.25 million schedules). Every Promela atomic
// step is a critical section of the one mutex, mu; a blocking guard (the
// meta-lock's and the collector's wait for the busy bit to clear, the
// collector's wait for the mutators) waits on a Cond of mu. Steps of the
// models that only the busy bit's holder can interleave with are merged
// into one: the meta-lock, the state test, setHashed and the unlock.
package hashing

import (
	"fmt"
	"strings"
	"sync"
)

// HashState of an object copy (Table 1).
type HashState int

const (
	Unhashed HashState = iota
	Hashed
	Moved
)

func (s HashState) String() string { return [...]string{"UNHASHED", "HASHED", "MOVED"}[s] }

// Phase of the collector.
type Phase int

const (
	NoGC Phase = iota
	MarkAlloc
	Copy
	Flip
	Reclaim
)

func (p Phase) String() string {
	return [...]string{"NOGC", "MARK_ALLOC", "COPY", "FLIP", "RECLAIM"}[p]
}

// Invalid is the initial value of the global hash.
const Invalid = -1

func fwd(a int) int { return 1 - a }

// World is the model's shared state.
type World struct {
	mu      sync.Mutex
	changed *sync.Cond // a busy bit cleared or a handshake answered

	metaLock bool // hashByAddress takes the meta-lock (the fix)

	hashState        [2]HashState
	busy, forwarded  [2]bool
	hashcode         [2]int
	currentFromSpace int
	gPhase           Phase
	behind           []bool // m_phase_behind
	attached         []bool // the mutator's thread runs: handshakes wait for it
	root             []int
	hash             int // the first hash code returned

	violation string
	log       []string
}

// NewWorld makes the initial state: the object UNHASHED at address 0, the
// current fromspace, every mutator's root referring to it.
func NewWorld(mutators int, metaLock bool) *World {
	w := &World{metaLock: metaLock, hash: Invalid,
		behind: make([]bool, mutators), attached: make([]bool, mutators), root: make([]int, mutators)}
	w.changed = sync.NewCond(&w.mu)
	return w
}

func (w *World) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...))
}

// Violation returns the first violation of Consistency, or "".
func (w *World) Violation() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.violation
}

func (w *World) inGCCycle() bool        { return w.gPhase != NoGC }
func (w *World) inFromSpace(o int) bool { return o == w.currentFromSpace }

// record is "hash = hc" with the check of Consistency.
func (w *World) record(who string, hc int) {
	w.logf("%s: hashCode = %d", who, hc)
	if w.hash == Invalid {
		w.hash = hc
	} else if hc != w.hash && w.violation == "" {
		w.violation = fmt.Sprintf("%s's hashCode is %d, an earlier one was %d; steps: %s", who, hc, w.hash, strings.Join(w.log, "; "))
	}
}

// getObjectHashCode is Model 16's getObjectHashCode with hashByAddress
// (Algorithm 10) and the meta-lock (Model 17). Called with mu held; it may
// wait for the busy bit.
func (w *World) getObjectHashCode(o int) int {
	tmp := w.hashByAddress(o)
	if w.hashState[tmp] == Hashed {
		return tmp
	}
	return w.hashcode[tmp]
}

func (w *World) hashByAddress(o int) int {
	if w.hashState[o] != Unhashed {
		return o
	}
	if !w.inGCCycle() || !w.inFromSpace(o) {
		w.hashState[o] = Hashed
		return o
	}
	if !w.metaLock {
		// The race: set the fromspace header's state as outside a
		// GC cycle, whether or not the collector has copied it.
		w.hashState[o] = Hashed
		return o
	}
	// metaLockObject: wait until the header is forwarded or not busy.
	for !w.forwarded[o] && w.busy[o] {
		w.changed.Wait()
	}
	pseudo := o
	if w.forwarded[o] {
		pseudo = fwd(o)
	} else {
		w.busy[o] = true
	}
	if w.hashState[pseudo] == Unhashed {
		w.hashState[pseudo] = Hashed
	}
	// metaUnlockObject.
	if w.inGCCycle() && w.inFromSpace(pseudo) {
		w.busy[pseudo] = false
		w.changed.Broadcast()
	}
	return pseudo
}

// advancePhase is Model 19: set the phase and every attached mutator
// behind, then wait until each has answered (or detached).
func (w *World) advancePhase(p Phase) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gPhase = p
	for i := range w.behind {
		w.behind[i] = w.attached[i]
	}
	w.logf("collector: %v", p)
	w.changed.Broadcast()
	for w.anyBehind() {
		w.changed.Wait()
	}
}

func (w *World) anyBehind() bool {
	for _, b := range w.behind {
		if b {
			return true
		}
	}
	return false
}

// Collector runs cycles whole GC cycles (Model 18).
func (w *World) Collector(cycles int) {
	for range cycles {
		w.collection()
	}
}

func (w *World) collection() {
	w.mu.Lock()
	o := w.currentFromSpace
	w.mu.Unlock()
	w.advancePhase(MarkAlloc)
	// Copy the header: busy by CAS (waiting for the mutators' meta-lock),
	// the state per Table 1, forwarded, not busy.
	w.mu.Lock()
	for w.busy[o] {
		w.changed.Wait()
	}
	f := fwd(o)
	w.forwarded[f] = false
	switch w.hashState[o] {
	case Unhashed:
		w.hashState[f] = Unhashed
	case Hashed:
		w.hashState[f] = Moved
		w.hashcode[f] = o
	case Moved:
		w.hashState[f] = Moved
		w.hashcode[f] = w.hashcode[o]
	}
	w.forwarded[o] = true
	w.logf("collector: copies %d (%v) to %d (%v)", o, w.hashState[o], f, w.hashState[f])
	w.mu.Unlock()
	w.advancePhase(Copy) // the contents are not modelled
	w.advancePhase(Flip)
	w.mu.Lock()
	for i := range w.root {
		w.root[i] = fwd(w.root[i])
	}
	w.logf("collector: roots flipped to %d", f)
	w.mu.Unlock()
	w.advancePhase(Reclaim)
	w.mu.Lock()
	w.currentFromSpace = f
	w.mu.Unlock()
	w.advancePhase(NoGC)
	w.mu.Lock()
	w.observe()
	w.mu.Unlock()
}

// observe checks, between two GC cycles, the hash code the next hashCode
// through mutator 0's root would return (without calling it, which would
// change the state): the address of a HASHED or UNHASHED object (which
// hashCode would set HASHED), the hashcode field of a MOVED one.
func (w *World) observe() {
	o := w.root[0]
	hc := o
	if w.hashState[o] == Moved {
		hc = w.hashcode[o]
	}
	if w.hash != Invalid && hc != w.hash && w.violation == "" {
		w.violation = fmt.Sprintf("after the cycle, hashCode would return %d (%d is %v), an earlier one was %d; steps: %s", hc, o, w.hashState[o], w.hash, strings.Join(w.log, "; "))
	}
}

// Mutator is Model 15 for a thread that attaches at some moment (from
// then on the collector's handshakes wait for it), makes calls hashCode
// calls with a safepoint between two (where it answers a handshake it is
// behind on), and detaches (exits). A hashCode call is two steps: obj =
// root[id], then getObjectHashCode(obj) with hash = hc.
func (w *World) Mutator(id, calls int) {
	who := fmt.Sprintf("M%d", id)
	w.mu.Lock()
	w.attached[id] = true
	w.logf("%s attaches in %v", who, w.gPhase)
	w.mu.Unlock()
	for k := range calls {
		var obj int
		w.mu.Lock()
		if k > 0 && w.behind[id] {
			w.behind[id] = false
			w.logf("%s answers: %v", who, w.gPhase)
			w.changed.Broadcast()
		}
		obj = w.root[id]
		w.mu.Unlock()
		w.mu.Lock()
		w.record(who, w.getObjectHashCode(obj))
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.attached[id] = false
	w.behind[id] = false
	w.changed.Broadcast()
	w.mu.Unlock()
}

// Final is a hashCode through mutator 0's root once every process is done.
func (w *World) Final() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.record("at the end", w.getObjectHashCode(w.root[0]))
}
