// Package deadlock is the deadlock detection of the engine (package
// scheduler/internal/engine), thesis 2.5: reverse lock chain analysis at
// every failed lock acquisition (2.5.1, LockChain, and the two deadlocks a
// goroutine makes on its own, SelfDeadlock and ReaderWriterCycle), and
// condition deadlocks when a path ends with goroutines waiting or blocked
// (2.5.2, Stuck); FinalStates says what each goroutine waits for when an
// execution ends, for the timeline.
//
// A Detector reads the execution through its Host: goroutines and locks
// are the host's handles (G, L; the zero value is none), and what the
// strategy knows (which goroutines are blocked on a lock, whether some are
// delayed) comes through the host too. It keeps no state between calls.
// Each check returns the finding it makes, with the key the engine
// deduplicates findings by, and leaves it to the engine to add it (with the
// position of the user's call, which only the engine can count frames to)
// and to end the path.
package deadlock

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// Status is a goroutine's state of scheduling.
type Status uint8

const (
	Runnable Status = iota // can be resumed at a scheduling point
	Waiting                // parked until woken
	Exited
)

// Goroutine is what a detector reads of a goroutine.
type Goroutine struct {
	Index   int32 // the engine's creation index (the strategy's thread)
	Status  Status
	Running bool // the goroutine of the block under way
	Frozen  bool // stopped by the step bound
	Pseudo  bool // a pseudo-thread (a store buffer's flusher, the clock): waits for no goroutine
	On      string
	OnLock  int32 // a waiting RWMutex writer: the id of the lock whose readers it waits for; else -1
	Fn      func()
	PCs     []uintptr // trace mode: the call stack at its last event
}

// Lock is what a detector reads of a lock.
type Lock[G comparable] struct {
	ID      int32
	Kind    string // "mutex" or "rwmutex"
	Writer  G      // the Mutex holder, or the RWMutex writer
	Pending bool   // RWMutex: the writer waits for the readers to leave
}

// Host is the execution as deadlock detection reads it.
type Host[G, L comparable] interface {
	// Goroutines returns every goroutine, in creation order.
	Goroutines() []G
	Goroutine(g G) Goroutine
	// ID names g in reports (T0, T0.1...).
	ID(g G) string
	// Held returns the locks g holds; LastLock the last lock it released.
	Held(g G) []L
	LastLock(g G) L
	// Lock describes l; Owners returns the goroutines that hold it (a
	// pending writer does not), Readers those that hold it for reading;
	// LockName names it in reports (none: "?").
	Lock(l L) Lock[G]
	Owners(l L) []G
	Readers(l L) []G
	LockName(l L) string
	// The strategy's: the goroutines blocked on a lock, and how many are
	// delayed. Exploring: not a replayed prefix (the strategy knows
	// nothing of it).
	Blocked() []sched.Blocked
	DelayedCount() int
	Exploring() bool
	// TimerWakes: a pending timer would wake g.
	TimerWakes(g G) bool
	// Wanted returns the lock g failed to take in a traced execution (the
	// guide's record), or none.
	Wanted(g G) L
	// Pos is the first position of user code in pcs.
	Pos(pcs []uintptr) string
}

// Detector is the deadlock detection of one execution.
type Detector[G, L comparable] struct {
	host Host[G, L]
}

// NewExecution prepares d for a new execution of host.
func (d *Detector[G, L]) NewExecution(host Host[G, L]) { d.host = host }

// LockChain looks for a lock cycle when t cannot acquire l (in mode, the
// method called): "if l's current owner's last lock's current owner's last
// lock's ... ever reaches a current owner equal to the current thread then
// a lock-cycle deadlock has been detected". The owners of an RWMutex are
// all its readers, so the chain branches there. It returns the finding
// (without its position) and its key, or nil.
func (d *Detector[G, L]) LockChain(t G, l L, mode string) (*result.Finding, string) {
	h := d.host
	var none L
	visited := map[G]bool{}
	var chain []G
	var walk func(l L) bool
	walk = func(l L) bool {
		for _, o := range h.Owners(l) {
			if o == t {
				return true
			}
			if visited[o] {
				continue
			}
			visited[o] = true
			if ll := h.LastLock(o); ll != none {
				chain = append(chain, o)
				if walk(ll) {
					return true
				}
				chain = chain[:len(chain)-1]
			}
		}
		return false
	}
	if !walk(l) {
		return nil, ""
	}
	// ownedBy returns the lock o holds in the chain: the lock whose owner
	// o was found to be.
	ownedBy := func(o G) L {
		m := l
		for _, c := range chain {
			if c == o {
				return m
			}
			m = h.LastLock(c)
		}
		return m
	}
	gs := []result.Goroutine{{ID: h.ID(t), State: "running", On: h.Lock(l).Kind, Note: "wants " + h.LockName(l) + " (" + mode + ")"}}
	ids := []string{h.ID(t)}
	var parts []string
	parts = append(parts, fmt.Sprintf("%s wants %s", h.ID(t), h.LockName(l)))
	for _, o := range chain {
		gs = append(gs, result.Goroutine{ID: h.ID(o), State: d.stateOf(o), On: h.Goroutine(o).On,
			Note: fmt.Sprintf("holds %s; would block on %s if it had not yet taken it", h.LockName(ownedBy(o)), h.LockName(h.LastLock(o)))})
		ids = append(ids, h.ID(o))
		parts = append(parts, fmt.Sprintf("%s holds %s and last took %s", h.ID(o), h.LockName(ownedBy(o)), h.LockName(h.LastLock(o))))
	}
	sort.Strings(ids)
	return &result.Finding{Kind: result.LockCycle, Goroutines: gs,
			Message: "lock-order cycle between goroutines " + strings.Join(ids, ", ") + ": " + strings.Join(parts, "; ")},
		"lock-cycle|" + strings.Join(ids, ",")
}

// SelfDeadlock is the finding when t write-locks an RWMutex it holds for
// reading (a writer cannot wait for itself as a reader), in mode, at pos:
// it can never proceed. (One that wants a lock it holds for writing waits
// for another goroutine to release it, which Go allows; if none can, Stuck
// reports it.)
func (d *Detector[G, L]) SelfDeadlock(t G, l L, mode, pos string) (*result.Finding, string) {
	h := d.host
	return &result.Finding{Kind: result.LockCycle, Pos: pos,
			Message:    fmt.Sprintf("goroutine %s calls %s on %s, which it already holds", h.ID(t), mode, h.LockName(l)),
			Goroutines: []result.Goroutine{{ID: h.ID(t), State: "blocked", On: h.Lock(l).Kind, Note: "holds " + h.LockName(l)}}},
		"self|" + h.ID(t) + "|" + mode + "|" + pos
}

// ReaderWriterCycle is the finding when t holds l for reading and asks
// again, at pos, while a writer waits for the readers to leave: the writer
// waits for t, t for the writer.
func (d *Detector[G, L]) ReaderWriterCycle(t G, l L, pos string) (*result.Finding, string) {
	h := d.host
	w := h.Lock(l).Writer
	ids := []string{h.ID(t), h.ID(w)}
	sort.Strings(ids)
	return &result.Finding{Kind: result.LockCycle, Pos: pos,
		Message: fmt.Sprintf("goroutine %s read-locks %s again while writer %s waits for its readers to leave", h.ID(t), h.LockName(l), h.ID(w)),
		Goroutines: []result.Goroutine{
			{ID: h.ID(t), State: "blocked", On: h.Lock(l).Kind, Note: "holds a read lock, wants another"},
			{ID: h.ID(w), State: "waiting", On: h.Goroutine(w).On, Note: "waits for the readers"},
		}}, "rw-cycle|" + strings.Join(ids, ",")
}

// stateOf describes g for a report.
func (d *Detector[G, L]) stateOf(g G) string {
	h := d.host
	u := h.Goroutine(g)
	switch {
	case u.Status == Exited:
		return "exited"
	case u.Running:
		return "running"
	case u.Status == Waiting:
		return "waiting"
	case u.Frozen:
		return "stopped"
	}
	if h.Exploring() {
		for _, b := range h.Blocked() {
			if b.Thread == u.Index {
				return "blocked"
			}
		}
	}
	return "runnable"
}

// Stuck is ExitBlock-DD's condition-deadlock check at the end of a path: no
// thread is enabled; if none is delayed either (ExitBlock-RWDD cannot tell
// a deadlock from pruning while a delayed thread could still run), any
// goroutine that is waiting or blocked on a lock is stuck for good. It
// returns the finding and its key, or nil; internal, if not empty, is an
// error of xbtest itself.
func (d *Detector[G, L]) Stuck() (f *result.Finding, key, internal string) {
	h := d.host
	if h.DelayedCount() > 0 {
		return nil, "", ""
	}
	blockedOn := map[int32]sched.Blocked{}
	for _, b := range h.Blocked() {
		blockedOn[b.Thread] = b
	}
	var stuck []result.Goroutine
	var sites []string
	self := "" // a goroutine waits for a lock it holds itself
	all := h.Goroutines()
	t0done := h.Goroutine(all[0]).Status == Exited
	for _, t := range all {
		u := h.Goroutine(t)
		if u.Status == Exited || u.Pseudo {
			continue // a flush pseudo-thread waits for stores, the clock for timers, not for others
		}
		if u.Frozen {
			return nil, "", "" // a goroutine stopped by the step bound: no verdict
		}
		g := result.Goroutine{ID: h.ID(t)}
		if b, ok := blockedOn[u.Index]; ok {
			g.State, g.On = "blocked", "mutex"
			if l, ok := d.lockByID(b.Lock); ok {
				g.On = h.Lock(l).Kind
				g.Note = "wants " + h.LockName(l)
				if o := h.Owners(l); len(o) > 0 {
					g.Note += " held by " + h.ID(o[0])
				}
			}
			if b.PC != 0 {
				g.Pos = h.Pos([]uintptr{b.PC})
			}
		} else if u.Status == Waiting {
			if t0done && h.TimerWakes(t) {
				continue // a timer will wake it: alive, as after go test
			}
			g.State, g.On = "waiting", u.On
			if l, ok := d.ownLock(t); ok {
				g.Note = "wants " + h.LockName(l) + ", which it already holds"
				if self == "" {
					self = fmt.Sprintf("goroutine %s wants %s, which it already holds", h.ID(t), h.LockName(l))
				}
			}
		} else {
			return nil, "", fmt.Sprintf("internal error: at the end of a path goroutine %s is runnable but neither enabled, delayed nor blocked", h.ID(t))
		}
		stuck = append(stuck, g)
		// The finding is one however many goroutines a loop started and
		// whatever their names: a goroutine is named in its key by the
		// function it runs (the go statement's) and what it waits for.
		site := g.State + " " + g.On + " " + FuncSite(u.Fn)
		if !slices.Contains(sites, site) {
			sites = append(sites, site)
		}
	}
	if len(stuck) == 0 {
		return nil, "", ""
	}
	kind, msg := result.Deadlock, "all goroutines are asleep: the test goroutine can never finish"
	switch {
	case t0done:
		kind, msg = result.Leak, fmt.Sprintf("the test returned but %d goroutine(s) are blocked forever", len(stuck))
	case d.lockCycleAmong(stuck):
		kind, msg = result.LockCycle, "all goroutines are asleep: a cycle of goroutines each waiting for a lock another holds"
		if self != "" {
			msg = "all goroutines are asleep: " + self
		}
	}
	sort.Strings(sites)
	return &result.Finding{Kind: kind, Message: msg, Goroutines: stuck}, string(kind) + "|" + strings.Join(sites, ","), ""
}

// FuncSite names the code of a goroutine's function: the same for every
// goroutine a go statement starts, in every execution.
func FuncSite(fn func()) string {
	if fn == nil {
		return ""
	}
	pc := **(**uintptr)(unsafe.Pointer(&fn))
	if f := runtime.FuncForPC(pc); f != nil {
		return f.Name()
	}
	return strconv.FormatUint(uint64(pc), 16)
}

// ownLock returns the lock waiting goroutine t holds itself for writing
// and waits for another goroutine to release (the engine's WaitRelease).
func (d *Detector[G, L]) ownLock(t G) (L, bool) {
	h := d.host
	u := h.Goroutine(t)
	if u.Status == Waiting && u.OnLock >= 0 {
		if l, ok := d.lockByID(u.OnLock); ok {
			if lk := h.Lock(l); lk.Writer == t && !lk.Pending {
				return l, true
			}
		}
	}
	var none L
	return none, false
}

// lockByID finds the lock of this execution with the given id among the
// locks held.
func (d *Detector[G, L]) lockByID(id int32) (L, bool) {
	h := d.host
	for _, t := range h.Goroutines() {
		for _, l := range h.Held(t) {
			if h.Lock(l).ID == id {
				return l, true
			}
		}
	}
	var none L
	return none, false
}

// lockCycleAmong reports whether every stuck goroutine waits for a lock and
// the waits-for relation has a cycle.
func (d *Detector[G, L]) lockCycleAmong(stuck []result.Goroutine) bool {
	h := d.host
	waitsFor := map[string][]string{}
	for _, g := range stuck {
		if !strings.HasPrefix(g.On, "mutex") && !strings.HasPrefix(g.On, "rwmutex") {
			return false
		}
	}
	for _, t := range h.Goroutines() {
		u := h.Goroutine(t)
		var l L
		found := false
		for _, b := range h.Blocked() {
			if b.Thread == u.Index {
				l, found = d.lockByID(b.Lock)
			}
		}
		if u.Status == Waiting && u.OnLock >= 0 {
			l, found = d.lockByID(u.OnLock)
			if found {
				if lk := h.Lock(l); lk.Pending && lk.Writer == t {
					for _, r := range h.Readers(l) {
						waitsFor[h.ID(t)] = append(waitsFor[h.ID(t)], h.ID(r))
					}
					continue
				}
			}
		}
		if found {
			for _, o := range h.Owners(l) {
				waitsFor[h.ID(t)] = append(waitsFor[h.ID(t)], h.ID(o))
			}
			var none G
			if lk := h.Lock(l); lk.Pending && lk.Writer != none && lk.Writer != t {
				waitsFor[h.ID(t)] = append(waitsFor[h.ID(t)], h.ID(lk.Writer))
			}
		}
	}
	// Depth-first search for a cycle.
	state := map[string]int{}
	var visit func(string) bool
	visit = func(u string) bool {
		state[u] = 1
		for _, v := range waitsFor[u] {
			if state[v] == 1 || state[v] == 0 && visit(v) {
				return true
			}
		}
		state[u] = 2
		return false
	}
	for u := range waitsFor {
		if state[u] == 0 && visit(u) {
			return true
		}
	}
	return false
}

// FinalStates describes every goroutine of the execution as it ended:
// what it holds, what it waits for and who holds that.
func (d *Detector[G, L]) FinalStates() []result.Goroutine {
	h := d.host
	blockedOn := map[int32]sched.Blocked{}
	for _, b := range h.Blocked() {
		blockedOn[b.Thread] = b
	}
	var none L
	var gs []result.Goroutine
	for _, t := range h.Goroutines() {
		u := h.Goroutine(t)
		if u.Pseudo {
			continue
		}
		g := result.Goroutine{ID: h.ID(t), State: d.stateOf(t)}
		if u.Status == Waiting {
			g.State = "waiting" // also the goroutine whose park ended the execution
		}
		if u.Status != Exited {
			g.Pos = h.Pos(u.PCs)
		}
		for _, l := range h.Held(t) {
			g.Holds = append(g.Holds, h.LockName(l))
		}
		want, wants := none, false
		if b, ok := blockedOn[u.Index]; ok && u.Status != Exited {
			g.State = "blocked"
			if b.PC != 0 {
				g.Pos = h.Pos([]uintptr{b.PC})
			}
			if want, wants = d.lockByID(b.Lock); wants {
				g.On = h.Lock(want).Kind
			} else {
				g.On = "mutex"
			}
		} else if l := h.Wanted(t); l != none && u.Status != Exited {
			g.State, g.On, want, wants = "blocked", h.Lock(l).Kind, l, true
		} else if u.Status == Waiting {
			g.On = u.On
			if u.OnLock >= 0 {
				want, wants = d.lockByID(u.OnLock) // an RWMutex writer waiting for readers
			}
		}
		if wants {
			g.Note = "wants " + h.LockName(want)
			for _, o := range h.Owners(want) {
				if o != t {
					g.WaitsFor = append(g.WaitsFor, h.ID(o))
				}
			}
		}
		gs = append(gs, g)
	}
	return gs
}
