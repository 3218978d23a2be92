package engine

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

// Deadlock detection (thesis 2.5): reverse lock chain analysis at every
// failed lock acquisition (2.5.1), and condition deadlocks when a path ends
// with goroutines waiting or blocked (2.5.2).
//
// The lock-cycle findings' positions skip 5 frames: callerPos, the check,
// its caller in the engine, the engine's lock method and package
// scheduler's drop-in method that forwards to it. Called from
// acquireFailed that reaches the caller of Lock; called straight from
// RWMutex.Lock (a writer waiting for readers) it reaches one frame
// further, the caller's caller, as it did before the forwarders existed
// (the corpus's expected positions record it).

func callerPC(skip int) uintptr {
	var pc [1]uintptr
	if runtime.Callers(skip+1, pc[:]) == 0 {
		return 0
	}
	return pc[0]
}

// reverseLockChain looks for a lock cycle when t cannot acquire l: "if l's
// current owner's last lock's current owner's last lock's ... ever reaches a
// current owner equal to the current thread then a lock-cycle deadlock has
// been detected". The owners of an RWMutex are all its readers, so the chain
// branches there.
func (r *run) reverseLockChain(t *thread, l *lockState, mode string) {
	visited := map[*thread]bool{}
	var chain []*thread
	var walk func(l *lockState) bool
	walk = func(l *lockState) bool {
		for _, o := range l.owners() {
			if o == t {
				return true
			}
			if visited[o] {
				continue
			}
			visited[o] = true
			if ll := o.lastLock; ll != nil {
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
		return
	}
	gs := []result.Goroutine{{ID: t.id(), State: "running", On: l.kind(), Note: "wants " + r.lockName(l) + " (" + mode + ")"}}
	ids := []string{t.id()}
	var parts []string
	parts = append(parts, fmt.Sprintf("%s wants %s", t.id(), r.lockName(l)))
	for _, o := range chain {
		gs = append(gs, result.Goroutine{ID: o.id(), State: r.stateOf(o), On: o.on,
			Note: fmt.Sprintf("holds %s; would block on %s if it had not yet taken it", r.lockName(ownedBy(o, l, chain, t)), r.lockName(o.lastLock))})
		ids = append(ids, o.id())
		parts = append(parts, fmt.Sprintf("%s holds %s and last took %s", o.id(), r.lockName(ownedBy(o, l, chain, t)), r.lockName(o.lastLock)))
	}
	sort.Strings(ids)
	r.addFinding(&result.Finding{Kind: result.LockCycle, Pos: callerPos(5), Goroutines: gs,
		Message: "lock-order cycle between goroutines " + strings.Join(ids, ", ") + ": " + strings.Join(parts, "; ")},
		"lock-cycle|"+strings.Join(ids, ","))
}

// ownedBy returns the lock o holds in the chain: the lock whose owner o was
// found to be.
func ownedBy(o *thread, first *lockState, chain []*thread, t *thread) *lockState {
	l := first
	for _, c := range chain {
		if c == o {
			return l
		}
		l = c.lastLock
	}
	return l
}

// selfDeadlock: t wants a lock it holds itself (Go's locks are not
// reentrant, and a writer cannot wait for itself as a reader). It can never
// proceed; the path ends here.
func (r *run) selfDeadlock(t *thread, l *lockState, mode string) {
	if r.exploring && r.dd {
		r.addFinding(&result.Finding{Kind: result.LockCycle, Pos: callerPos(5),
			Message:    fmt.Sprintf("goroutine %s calls %s on %s, which it already holds", t.id(), mode, r.lockName(l)),
			Goroutines: []result.Goroutine{{ID: t.id(), State: "blocked", On: l.kind(), Note: "holds " + r.lockName(l)}}},
			"self|"+t.id()+"|"+mode+"|"+callerPos(5))
	}
	if !r.exploring {
		r.diverged(t, "a replayed block deadlocked on its own lock")
	}
	r.stats.Schedules++
	r.end(EndPath)
	t.sleep()
}

// readerWriterCycle: t holds l for reading and asks again while a writer
// waits for the readers to leave; the writer waits for t, t for the writer.
func (r *run) readerWriterCycle(t *thread, l *lockState) {
	if r.exploring && r.dd {
		w := l.writer
		ids := []string{t.id(), w.id()}
		sort.Strings(ids)
		r.addFinding(&result.Finding{Kind: result.LockCycle, Pos: callerPos(5),
			Message: fmt.Sprintf("goroutine %s read-locks %s again while writer %s waits for its readers to leave", t.id(), r.lockName(l), w.id()),
			Goroutines: []result.Goroutine{
				{ID: t.id(), State: "blocked", On: l.kind(), Note: "holds a read lock, wants another"},
				{ID: w.id(), State: "waiting", On: w.on, Note: "waits for the readers"},
			}}, "rw-cycle|"+strings.Join(ids, ","))
	}
	if !r.exploring {
		r.diverged(t, "a replayed block deadlocked on a read lock")
	}
	r.stats.Schedules++
	r.end(EndPath)
	t.sleep()
}

func (r *run) lockName(l *lockState) string {
	if l == nil {
		return "?"
	}
	id := fmt.Sprintf("%s#%d", l.kind(), l.id)
	if name := r.heap.describe(uintptr(l.addr)); name != "" {
		return name + " (" + id + ")"
	}
	return id
}

// stateOf describes t for a report.
func (r *run) stateOf(t *thread) string {
	switch {
	case t.status == stExited:
		return "exited"
	case t == r.cur:
		return "running"
	case t.status == stWaiting:
		return "waiting"
	case t.frozen:
		return "stopped"
	}
	if r.exploring {
		for _, b := range r.strat.Blocked() {
			if b.Thread == t.idx {
				return "blocked"
			}
		}
	}
	return "runnable"
}

// checkStuck is ExitBlock-DD's condition-deadlock check at the end of a
// path: no thread is enabled; if none is delayed either (ExitBlock-RWDD
// cannot tell a deadlock from pruning while a delayed thread could still
// run), any goroutine that is waiting or blocked on a lock is stuck for good.
func (r *run) checkStuck() {
	if r.strat.DelayedCount() > 0 {
		return
	}
	blockedOn := map[int32]sched.Blocked{}
	for _, b := range r.strat.Blocked() {
		blockedOn[b.Thread] = b
	}
	var stuck []result.Goroutine
	var sites []string
	t0done := r.threads[0].status == stExited
	for _, t := range r.threads {
		if t.status == stExited || t.flushOf != nil || t.isClock {
			continue // a flush pseudo-thread waits for stores, the clock for timers, not for others
		}
		if t.frozen {
			return // a goroutine stopped by the step bound: no verdict
		}
		g := result.Goroutine{ID: t.id()}
		if b, ok := blockedOn[t.idx]; ok {
			g.State, g.On = "blocked", "mutex"
			if l := r.lockByID(b.Lock); l != nil {
				g.On = l.kind()
				g.Note = "wants " + r.lockName(l)
				if len(l.owners()) > 0 {
					g.Note += " held by " + l.owners()[0].id()
				}
			}
			if b.PC != 0 {
				g.Pos = firstUserPos([]uintptr{b.PC})
			}
		} else if t.status == stWaiting {
			if t0done && r.clock.Wakes(t.idx) {
				continue // a timer will wake it: alive, as after go test
			}
			g.State, g.On = "waiting", t.on
		} else {
			r.internal = fmt.Sprintf("internal error: at the end of a path goroutine %s is runnable but neither enabled, delayed nor blocked", t.id())
			return
		}
		stuck = append(stuck, g)
		// The finding is one however many goroutines a loop started and
		// whatever their names: a goroutine is named in its key by the
		// function it runs (the go statement's) and what it waits for.
		site := g.State + " " + g.On + " " + funcSite(t.fn)
		if !slices.Contains(sites, site) {
			sites = append(sites, site)
		}
	}
	if len(stuck) == 0 {
		return
	}
	kind, msg := result.Deadlock, "all goroutines are asleep: the test goroutine can never finish"
	switch {
	case t0done:
		kind, msg = result.Leak, fmt.Sprintf("the test returned but %d goroutine(s) are blocked forever", len(stuck))
	case r.lockCycleAmong(stuck):
		kind, msg = result.LockCycle, "all goroutines are asleep: a cycle of goroutines each waiting for a lock another holds"
	}
	sort.Strings(sites)
	r.addFinding(&result.Finding{Kind: kind, Message: msg, Goroutines: stuck}, string(kind)+"|"+strings.Join(sites, ","))
}

// funcSite names the code of a goroutine's function: the same for every
// goroutine a go statement starts, in every execution.
func funcSite(fn func()) string {
	if fn == nil {
		return ""
	}
	pc := **(**uintptr)(unsafe.Pointer(&fn))
	if f := runtime.FuncForPC(pc); f != nil {
		return f.Name()
	}
	return strconv.FormatUint(uint64(pc), 16)
}

// lockByID finds the lock of this execution with the given id.
func (r *run) lockByID(id int32) *lockState {
	for _, t := range r.threads {
		for _, l := range t.held {
			if l.id == id {
				return l
			}
		}
	}
	return nil
}

// lockCycleAmong reports whether every stuck goroutine waits for a lock and
// the waits-for relation has a cycle.
func (r *run) lockCycleAmong(stuck []result.Goroutine) bool {
	waitsFor := map[string][]string{}
	for _, g := range stuck {
		if g.On != "mutex" && g.On != "rwmutex" && !strings.HasPrefix(g.On, "rwmutex") {
			return false
		}
	}
	for _, t := range r.threads {
		var l *lockState
		for _, b := range r.strat.Blocked() {
			if b.Thread == t.idx {
				l = r.lockByID(b.Lock)
			}
		}
		if t.status == stWaiting && t.onObj >= 0 {
			l = r.lockByID(t.onObj)
			if l != nil && l.pending && l.writer == t {
				for _, h := range l.readers {
					waitsFor[t.id()] = append(waitsFor[t.id()], h.t.id())
				}
				continue
			}
		}
		if l != nil {
			for _, o := range l.owners() {
				waitsFor[t.id()] = append(waitsFor[t.id()], o.id())
			}
			if l.pending && l.writer != nil && l.writer != t {
				waitsFor[t.id()] = append(waitsFor[t.id()], l.writer.id())
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

// finalStates describes every goroutine of the execution as it ended.
func (r *run) finalStates() []result.Goroutine {
	blockedOn := map[int32]sched.Blocked{}
	for _, b := range r.strat.Blocked() {
		blockedOn[b.Thread] = b
	}
	var gs []result.Goroutine
	for _, t := range r.threads {
		if t.flushOf != nil || t.isClock {
			continue
		}
		g := result.Goroutine{ID: t.id(), State: r.stateOf(t)}
		if t.status == stWaiting {
			g.State = "waiting" // also the goroutine whose park ended the execution
		}
		if t.status != stExited {
			g.Pos = firstUserPos(t.pcs)
		}
		for _, l := range t.held {
			g.Holds = append(g.Holds, r.lockName(l))
		}
		var want *lockState
		if b, ok := blockedOn[t.idx]; ok && t.status != stExited {
			g.State = "blocked"
			if b.PC != 0 {
				g.Pos = firstUserPos([]uintptr{b.PC})
			}
			if want = r.lockByID(b.Lock); want != nil {
				g.On = want.kind()
			} else {
				g.On = "mutex"
			}
		} else if l := r.guide.wantOf(t); l != nil && t.status != stExited {
			g.State, g.On, want = "blocked", l.kind(), l
		} else if t.status == stWaiting {
			g.On = t.on
			if t.onObj >= 0 {
				want = r.lockByID(t.onObj) // an RWMutex writer waiting for readers
			}
		}
		if want != nil {
			g.Note = "wants " + r.lockName(want)
			for _, o := range want.owners() {
				if o != t {
					g.WaitsFor = append(g.WaitsFor, o.id())
				}
			}
		}
		gs = append(gs, g)
	}
	return gs
}
