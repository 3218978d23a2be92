// Package birrell ports Birrell's distributed reference listing as Moreau,
// Dickman and Jones formalise it ("Birrell's Distributed Reference Listing
// Revisited", ACM TOPLAS 2005: the transition rules of Figs 9–12), its
// FIFO variant (§5.1), the owner optimisations (§5.2), the cases Birrell's
// own description missed (§2.4, §3.2), and naive distributed reference
// counting (§2.2).
//
// An owner O holds a network object; other processes (A, B) hold
// references to it. The owner keeps a permanent dirty table (the
// processes holding a reference) and every process a transient dirty table
// (the copies it sent that are not yet acknowledged); both are roots of the
// owner's local collector. A process receiving a reference it cannot use
// yet makes a dirty call to the owner and blocks the deserialisation until
// the dirty_ack; it acknowledges the copy (copy_ack) only then. A process
// whose reference became unreachable makes a clean call. The states of a
// reference at a process: ⊥, nil (dirty call under way), OK, ccit (clean
// call in transit) and ccitnil (a copy arrived while a clean call was in
// transit: the dirty call waits for the clean_ack).
//
// The model: one goroutine per process running the application's script
// (make copies, drop the reference), and one goroutine per message in
// transit, which performs the receiving rule when it runs. With bag links
// (the paper's hypothesis: reliable, no duplication, no order) every
// message is delivered in every order the scheduler explores; with FIFO
// links each ordered pair of processes has a Go channel, and the delivering
// goroutine takes the oldest message of its link. Each rule is atomic and
// involves one process: a critical section of that process's mutex, so
// that rules of different processes commute and xbtest explores only the
// orders that matter, the orders of the rules of each process. The to-do
// tables are served at once by the rule that fills them (a later send is
// the same as a slower message), but for the clean calls, which a cleaning
// daemon sends (a goroutine per finalised reference), so that a copy can
// still cancel a clean call that is scheduled (Note 4). The test checks
// the end state once the model is quiescent (see World.counting).
//
// Properties, as assertions:
//
//   - Safety (Definition 12 and its purpose): the owner reclaims the object
//     as soon as neither dirty table has an entry and its own application
//     has dropped it (naive counting: its count is 0). Any message that
//     reaches the owner after that (a dirty call, a copy, an increment, a
//     clean call) is a use after reclaim, and so is a process that still
//     holds the reference (OK, nil or ccitnil) at the end. Every remote
//     reference that Definition 12 protects ends in one of the two: a
//     process in nil makes a dirty call, one in OK keeps the reference or
//     drops it and makes a clean call, a copy in transit makes its
//     receiver one of those. (Checking Definition 12 itself after every
//     rule would read every process's state in every rule, and make every
//     two rules depend on each other.)
//   - Liveness (Theorem 21), at quiescence: once every message has been
//     delivered and no process other than the owner holds the reference,
//     the owner's dirty tables are empty and every other process is in ⊥.
//
// Every assertion message carries the log of the rules each process
// applied, the messages it sent and received, merged in an order
// consistent with causality (Lamport clocks).
package birrell

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Proc is a process: the owner O and two others.
type Proc int

const (
	O Proc = iota
	A
	B
	nProcs
)

func (p Proc) String() string { return [...]string{"O", "A", "B"}[p] }

// State is rec_T(p, r).
type State int

const (
	Bot State = iota
	Nil
	OK
	Ccit
	Ccitnil
)

func (s State) String() string { return [...]string{"⊥", "nil", "OK", "ccit", "ccitnil"}[s] }

// Kind of a message.
type Kind int

const (
	Copy Kind = iota
	CopyAck
	Dirty
	DirtyAck
	Clean
	CleanAck
	Inc // naive counting
	Dec
)

func (k Kind) String() string {
	return [...]string{"copy", "copy_ack", "dirty", "dirty_ack", "clean", "clean_ack", "inc", "dec"}[k]
}

// Msg is a message in transit.
type Msg struct {
	Kind     Kind
	From, To Proc
	ID       int // a copy's identifier (Note 1), and its copy_ack's
	clock    int // the sender's Lamport clock
}

func (m Msg) String() string {
	if m.Kind == Copy || m.Kind == CopyAck {
		return fmt.Sprintf("%v(%d) %v→%v", m.Kind, m.ID, m.From, m.To)
	}
	return fmt.Sprintf("%v %v→%v", m.Kind, m.From, m.To)
}

// Variant of the algorithm.
type Variant int

const (
	// Base is the algorithm of Figs 9–12.
	Base Variant = iota
	// NoCcitnil (B1) is Birrell read literally (§2.4 (c), Note 5): a copy
	// received while a clean call is in transit is treated as from ⊥ and
	// the dirty call is made at once.
	NoCcitnil
	// EarlyCopyAck (B2) acknowledges a copy at once, before the dirty
	// call returns (against Note 7).
	EarlyCopyAck
	// NoTdirtyResults (B3): a process other than the owner keeps no
	// transient entry for a copy it sends (a reference returned as a
	// result is not kept reachable, §2.4 (b)).
	NoTdirtyResults
	// FIFOVariant is §5.1: states OK and ⊥ only, a received reference is
	// usable at once and its dirty call scheduled; no clean_ack; dirty
	// and clean calls leave in the order they were made.
	FIFOVariant
	// SenderIsOwner (B5, §5.2.1): the owner's make_copy enters the
	// receiver in its permanent table directly; a copy from the owner
	// needs no dirty call and no copy_ack.
	SenderIsOwner
	// ReceiverIsOwner (B6, §5.2.2): a copy sent to the owner leaves no
	// transient entry.
	ReceiverIsOwner
	// NaiveRC is naive distributed reference counting (§2.2, Fig. 1):
	// the sender of a copy sends the owner an increment, a process that
	// drops its reference a decrement.
	NaiveRC
)

type entry struct {
	peer Proc // the receiver of a transient entry, the sender of a blocked one
	id   int
}

// process is one process's state: rec_T, its tables and its
// application's hold, under its own mutex.
type process struct {
	mu            sync.Mutex
	id            Proc
	rec           State
	tdirty        []entry
	blocked       []entry
	dirtyCallTodo bool
	cleanCallTodo bool
	dirtyPending  bool // §5.1: a dirty call not yet acknowledged
	holds         bool // the application holds the reference
	nextID        int
	onReceipt     []Action // what the application does once it obtains the reference

	// The owner's:
	pdirty    [nProcs]bool // permanent dirty table
	count     int          // naive counting
	reclaimed bool
	violation string // the owner's first use after reclaim
	lemma     string // the first violation of a lemma of §4.1 at this process

	clock int
	log   []logEntry
}

type logEntry struct {
	clock int
	p     Proc
	text  string
}

// World is the processes and the links.
type World struct {
	variant Variant
	fifo    bool
	links   [nProcs][nProcs]chan Msg // FIFO links
	procs   [nProcs]*process

	// Quiescence. Under go test the test waits for the model's
	// goroutines with a WaitGroup. Under xbtest it sleeps: virtual time
	// passes only when no goroutine can run (as in testing/synctest), so
	// the sleep ends once the model is quiescent. One WaitGroup (or any
	// object) that every goroutine updates as it ends would make the ends
	// of any two goroutines, and so everything after them, depend on each
	// other: the cleaning scenario's 378 schedules become 9,584 with a
	// done channel per goroutine and over 400,000 with one WaitGroup.
	counting bool
	wg       sync.WaitGroup

	violations map[string]string // found at the end
}

// task is a goroutine of the model. A rule only records the goroutines it
// starts; they start when the goroutine ends, after the rule's lock is
// released, so that nothing is left in it that they could observe.
type task struct {
	pending []func(t *task)
}

// start records f to run on a new goroutine when t ends.
func (t *task) start(f func(t *task)) { t.pending = append(t.pending, f) }

// spawn runs f on a new goroutine.
func (w *World) spawn(f func(t *task)) {
	if w.counting {
		w.wg.Add(1)
	}
	go w.runTask(f)
}

// runTask runs f, then starts the goroutines it recorded. Nothing follows
// a go statement but the next one: a shared access there would be one the
// new goroutine could observe, and xbtest would explore it both ways.
func (w *World) runTask(f func(t *task)) {
	t := &task{}
	f(t)
	counting, pending := w.counting, t.pending
	if counting {
		defer w.wg.Done()
	}
	for _, f := range pending {
		if counting {
			w.wg.Add(1)
		}
		go w.runTask(f)
	}
}

// An Action is a step of a process's application.
type Action struct {
	copyTo Proc
	drop   bool
}

// CopyTo is make_copy(p, to): send the reference to to.
func CopyTo(to Proc) Action { return Action{copyTo: to} }

// Drop: the application drops the reference (it becomes unreachable).
var Drop = Action{drop: true}

// NewWorld makes the initial state: the owner holds the reference (OK);
// the processes of holders hold it too, are OK and in the owner's
// permanent table (or count).
func NewWorld(v Variant, fifo bool, holders ...Proc) *World {
	w := &World{variant: v, fifo: fifo, violations: map[string]string{}, counting: os.Getenv("XBTEST") == ""}
	for p := range nProcs {
		w.procs[p] = &process{id: p}
	}
	o := w.procs[O]
	o.rec, o.holds = OK, true
	for _, p := range holders {
		w.procs[p].rec, w.procs[p].holds = OK, true
		o.pdirty[p] = true
		o.count++
	}
	if fifo {
		for i := range w.links {
			for j := range w.links[i] {
				w.links[i][j] = make(chan Msg, 8)
			}
		}
	}
	return w
}

func (p *process) logf(format string, args ...any) {
	p.clock++
	p.log = append(p.log, logEntry{p.clock, p.id, fmt.Sprintf(format, args...)})
}

// lemmas checks, after every rule of p, the invariants of §4.1 that
// involve p alone (for the base algorithm, whose lemmas they are): Lemma 1
// (ccitnil ⇒ a dirty call to do), Lemma 2 (a clean call to do ⇒ OK),
// Lemma 5a (a dirty call to do ⇒ nil or ccitnil), Lemma 7 (a transient
// entry ⇒ OK) and Lemma 20 (nil ⇒ a blocked deserialisation).
func (w *World) lemmas(p *process) {
	if w.variant != Base || p.lemma != "" {
		return
	}
	var bad string
	switch {
	case p.rec == Ccitnil && !p.dirtyCallTodo:
		bad = "Lemma 1: ccitnil without a dirty call to do"
	case p.cleanCallTodo && p.rec != OK:
		bad = fmt.Sprintf("Lemma 2: a clean call to do in %v", p.rec)
	case p.dirtyCallTodo && p.rec != Nil && p.rec != Ccitnil:
		bad = fmt.Sprintf("Lemma 5a: a dirty call to do in %v", p.rec)
	case len(p.tdirty) > 0 && p.rec != OK:
		bad = fmt.Sprintf("Lemma 7: transient entries in %v", p.rec)
	case p.rec == Nil && len(p.blocked) == 0:
		bad = "Lemma 20: nil without a blocked deserialisation"
	}
	if bad != "" {
		p.lemma = fmt.Sprintf("%v: %s", p.id, bad)
	}
}

// useAfterReclaim records the owner's first use after reclaim.
func (o *process) useAfterReclaim(format string, args ...any) {
	if o.violation == "" {
		o.violation = fmt.Sprintf(format, args...)
	}
}

// OnReceipt sets what p's application does once it has obtained the
// reference (deserialisation completed), the first time.
func (w *World) OnReceipt(p Proc, actions ...Action) { w.procs[p].onReceipt = actions }

// Violation returns the violation of "safety", "use after reclaim",
// "lemma" or "liveness" found, with the log, or "". Call it after Run.
func (w *World) Violation(p string) string {
	if v := w.violations[p]; v != "" {
		return v + "; " + w.history()
	}
	return ""
}

// history merges the processes' logs in Lamport clock order.
func (w *World) history() string {
	var all []logEntry
	for _, p := range w.procs {
		all = append(all, p.log...)
	}
	slices.SortStableFunc(all, func(a, b logEntry) int {
		return cmp.Or(cmp.Compare(a.clock, b.clock), cmp.Compare(a.p, b.p))
	})
	var s []string
	for _, e := range all {
		s = append(s, fmt.Sprintf("%v: %s", e.p, e.text))
	}
	return "events: " + strings.Join(s, "; ")
}

// Run starts the application of every process in script (those that hold
// the reference from the start), waits until every goroutine is done and
// every message delivered, and checks safety and liveness at quiescence.
func (w *World) Run(script map[Proc][]Action) {
	for _, p := range []Proc{O, A, B} {
		if as, ok := script[p]; ok {
			w.spawn(func(t *task) { w.app(t, p, as) })
		}
	}
	if w.counting {
		w.wg.Wait()
	} else {
		time.Sleep(time.Second)
	}
	for _, p := range w.procs {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	w.quiescent()
}

// app runs p's first action, one rule, then the rest on a goroutine
// that the rule starts with the others.
func (w *World) app(t *task, p Proc, actions []Action) {
	if len(actions) == 0 {
		return
	}
	pr := w.procs[p]
	pr.mu.Lock()
	if a := actions[0]; a.drop {
		w.drop(t, pr)
	} else {
		w.makeCopy(t, pr, a.copyTo)
	}
	w.lemmas(pr)
	pr.mu.Unlock()
	t.start(func(t *task) { w.app(t, p, actions[1:]) })
}

// obtained: p's application has the reference (deserialisation done).
func (w *World) obtained(t *task, p *process) {
	if p.holds {
		return
	}
	p.holds = true
	if p.id == O && p.reclaimed {
		p.useAfterReclaim("the owner's application obtains the reference after the owner reclaimed the object")
	}
	if as := p.onReceipt; len(as) > 0 {
		p.onReceipt = nil
		t.start(func(t *task) { w.app(t, p.id, as) })
	}
}

// post sends m from p (whose lock is held) and starts the goroutine that
// delivers it.
func (w *World) post(t *task, p *process, m Msg) {
	p.logf("sends %v", m)
	m.clock = p.clock
	if w.fifo {
		w.links[m.From][m.To] <- m
		t.start(func(t *task) { w.deliverFIFO(t, m.From, m.To) })
	} else {
		t.start(func(t *task) { w.deliver(t, m) })
	}
}

// deliver is a bag link: this message, whenever its goroutine runs.
func (w *World) deliver(t *task, m Msg) {
	p := w.procs[m.To]
	p.mu.Lock()
	defer p.mu.Unlock()
	w.receive(t, p, m)
	w.lemmas(p)
}

// deliverFIFO is a FIFO link: the oldest message of the link.
func (w *World) deliverFIFO(t *task, from, to Proc) {
	p := w.procs[to]
	p.mu.Lock()
	defer p.mu.Unlock()
	w.receive(t, p, <-w.links[from][to])
	w.lemmas(p)
}

func (w *World) receive(t *task, p *process, m Msg) {
	p.clock = max(p.clock, m.clock)
	p.logf("receives %v", m)
	if p.id == O && p.reclaimed {
		p.useAfterReclaim("%v reaches the object the owner reclaimed", m)
	}
	switch m.Kind {
	case Copy:
		w.receiveCopy(t, p, m.From, m.ID)
	case CopyAck:
		w.receiveCopyAck(t, p, m.From, m.ID)
	case Dirty:
		w.receiveDirty(t, p, m.From)
	case DirtyAck:
		w.receiveDirtyAck(t, p)
	case Clean:
		w.receiveClean(t, p, m.From)
	case CleanAck:
		w.receiveCleanAck(t, p)
	case Inc:
		p.count++
		p.logf("count %d", p.count)
	case Dec:
		p.count--
		p.logf("count %d", p.count)
		w.maybeReclaim(p)
	}
}

// makeCopy is make_copy(p1, p2, r).
func (w *World) makeCopy(t *task, p1 *process, p2 Proc) {
	if p1.rec != OK || !p1.holds {
		panic(fmt.Sprintf("%v copies a reference it does not hold", p1.id))
	}
	if p1.id == O && p1.reclaimed {
		p1.useAfterReclaim("the owner sends a reference to the object it reclaimed")
	}
	p1.nextID++
	id := 10*int(p1.id) + p1.nextID // unique system-wide (Note 1)
	switch {
	case w.variant == NaiveRC:
		w.post(t, p1, Msg{Kind: Inc, From: p1.id, To: O})
	case w.variant == NoTdirtyResults && p1.id != O:
	case w.variant == SenderIsOwner && p1.id == O:
		p1.pdirty[p2] = true
	case w.variant == ReceiverIsOwner && p2 == O:
	default:
		p1.tdirty = append(p1.tdirty, entry{p2, id})
	}
	w.post(t, p1, Msg{Kind: Copy, From: p1.id, To: p2, ID: id})
}

// drop: p's application drops the reference; the local collector may
// finalise it.
func (w *World) drop(t *task, p *process) {
	p.holds = false
	p.logf("drops the reference")
	if w.variant == NaiveRC && p.id != O {
		p.rec = Bot
		w.post(t, p, Msg{Kind: Dec, From: p.id, To: O})
		return
	}
	w.finalize(t, p)
	w.maybeReclaim(p)
}

// finalize(p, r): not locally live (the application dropped it, no
// transient entry), OK, not the owner, no clean call scheduled. The
// cleaning daemon will make the clean call.
func (w *World) finalize(t *task, p *process) {
	if p.id == O || p.holds || len(p.tdirty) > 0 || p.rec != OK || p.cleanCallTodo || w.variant == NaiveRC {
		return
	}
	p.cleanCallTodo = true
	p.logf("finalize: clean call scheduled")
	t.start(func(t *task) { w.cleaner(t, p) })
}

// cleaner is the cleaning daemon's do_clean_call(p, r).
func (w *World) cleaner(t *task, p *process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer w.lemmas(p)
	if !p.cleanCallTodo {
		return // cancelled by a copy (Note 4)
	}
	p.cleanCallTodo = false
	if w.variant == FIFOVariant {
		p.rec = Bot
	} else {
		p.rec = Ccit
	}
	w.post(t, p, Msg{Kind: Clean, From: p.id, To: O})
}

// receiveCopy is receive_copy(p1, p2, r, id).
func (w *World) receiveCopy(t *task, p2 *process, p1 Proc, id int) {
	ack := Msg{Kind: CopyAck, From: p2.id, To: p1, ID: id}
	if p2.id == O {
		// A reference returned to its owner resolves to the concrete
		// object (the owner is OK).
		if w.variant != NaiveRC && w.variant != ReceiverIsOwner {
			w.post(t, p2, ack)
		}
		w.obtained(t, p2)
		return
	}
	switch w.variant {
	case NaiveRC:
		p2.rec = OK
		w.obtained(t, p2)
		return
	case FIFOVariant:
		switch p2.rec {
		case Bot:
			p2.rec = OK
			p2.dirtyPending = true
			p2.blocked = append(p2.blocked, entry{p1, id})
			w.post(t, p2, Msg{Kind: Dirty, From: p2.id, To: O})
		case OK:
			p2.cleanCallTodo = false
			if p2.dirtyPending {
				p2.blocked = append(p2.blocked, entry{p1, id})
			} else {
				w.post(t, p2, ack)
			}
		}
		w.obtained(t, p2)
		return
	case SenderIsOwner:
		if p1 == O && (p2.rec == Bot || p2.rec == OK) {
			// No dirty call, no copy_ack: the owner has entered p2.
			p2.rec = OK
			p2.cleanCallTodo = false
			w.obtained(t, p2)
			return
		}
	}
	switch p2.rec {
	case Nil, Ccitnil:
		p2.blocked = append(p2.blocked, entry{p1, id})
	case Bot, Ccit:
		if p2.rec == Bot || w.variant == NoCcitnil {
			p2.rec = Nil
		} else {
			p2.rec = Ccitnil
		}
		p2.dirtyCallTodo = true
		p2.blocked = append(p2.blocked, entry{p1, id})
		w.doDirtyCall(t, p2)
	case OK:
		p2.cleanCallTodo = false // Note 4
		w.post(t, p2, ack)
		w.obtained(t, p2)
		return
	}
	if w.variant == EarlyCopyAck {
		w.post(t, p2, ack)
	}
}

// doDirtyCall is do_dirty_call(p, r), guarded by Note 5.
func (w *World) doDirtyCall(t *task, p *process) {
	if p.dirtyCallTodo && p.rec != Ccitnil {
		p.dirtyCallTodo = false
		w.post(t, p, Msg{Kind: Dirty, From: p.id, To: O})
	}
}

// receiveDirty is receive_dirty(p, O, r) and do_dirty_ack.
func (w *World) receiveDirty(t *task, o *process, p Proc) {
	o.pdirty[p] = true
	w.post(t, o, Msg{Kind: DirtyAck, From: O, To: p})
}

// receiveDirtyAck is receive_dirty_ack(O, p, r) and do_copy_ack for the
// blocked copies: the reference is usable.
func (w *World) receiveDirtyAck(t *task, p *process) {
	for _, b := range p.blocked {
		if w.variant != EarlyCopyAck && !(w.variant == SenderIsOwner && b.peer == O) {
			w.post(t, p, Msg{Kind: CopyAck, From: p.id, To: b.peer, ID: b.id})
		}
	}
	p.blocked = nil
	p.dirtyPending = false
	if w.variant != FIFOVariant {
		p.rec = OK
	}
	w.obtained(t, p)
	w.finalize(t, p)
}

// receiveCopyAck is receive_copy_ack(p1, p2, r, id).
func (w *World) receiveCopyAck(t *task, p2 *process, p1 Proc, id int) {
	p2.tdirty = slices.DeleteFunc(p2.tdirty, func(e entry) bool { return e == entry{p1, id} })
	w.finalize(t, p2)
	w.maybeReclaim(p2)
}

// receiveClean is receive_clean(p, O, r) and do_clean_ack.
func (w *World) receiveClean(t *task, o *process, p Proc) {
	o.pdirty[p] = false
	if w.variant != FIFOVariant {
		w.post(t, o, Msg{Kind: CleanAck, From: O, To: p})
	}
	w.maybeReclaim(o)
}

// receiveCleanAck is receive_clean_ack(O, p, r).
func (w *World) receiveCleanAck(t *task, p *process) {
	switch {
	case p.rec == Ccitnil:
		p.rec = Nil
		w.doDirtyCall(t, p) // Note 11: the postponed dirty call
	case p.rec == Ccit:
		p.rec = Bot
	default:
		// Only B1 gets here: Birrell's cleanup leaves a new surrogate
		// (nil or OK) alone.
	}
}

// maybeReclaim is the owner's local collector: the object is reclaimed
// when neither dirty table has an entry and the owner's application has
// dropped it. Called with p's lock held; only the owner reclaims.
func (w *World) maybeReclaim(o *process) {
	if o.id != O || o.reclaimed || o.holds || w.ownerTablesNonEmpty(o) {
		return
	}
	o.reclaimed = true
	o.logf("reclaims the object")
}

func (w *World) ownerTablesNonEmpty(o *process) bool {
	if w.variant == NaiveRC {
		return o.count > 0
	}
	return len(o.tdirty) > 0 || slices.Contains(o.pdirty[:], true)
}

// quiescent checks safety and Theorem 21 once every goroutine is done and
// nothing is in transit.
func (w *World) quiescent() {
	o := w.procs[O]
	if o.violation != "" {
		w.violations["use after reclaim"] = o.violation
	}
	for _, p := range w.procs {
		if p.lemma != "" {
			w.violations["lemma"] = p.lemma
		}
	}
	for _, p := range w.procs[A:] {
		if s := p.rec; o.reclaimed && (s == OK || s == Nil || s == Ccitnil) {
			w.violations["safety"] = fmt.Sprintf("%v still holds a reference (%v) to the object the owner reclaimed", p.id, s)
		}
	}
	if w.procs[A].holds || w.procs[B].holds || w.variant == NaiveRC {
		return // Theorem 21 assumes every other process dropped it
	}
	if w.ownerTablesNonEmpty(o) {
		w.violations["liveness"] = fmt.Sprintf("at quiescence the owner's dirty tables are not empty: permanent %v, transient %v", o.pdirty, o.tdirty)
		return
	}
	for _, p := range w.procs[A:] {
		if p.rec != Bot || len(p.blocked) > 0 {
			w.violations["liveness"] = fmt.Sprintf("at quiescence %v is %v with %d blocked deserialisations", p.id, p.rec, len(p.blocked))
		}
	}
}
