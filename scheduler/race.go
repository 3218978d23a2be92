package scheduler

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/eraser"
)

// Race detection: the scheduler feeds package eraser the events of every
// execution, replayed prefix included, so its state always follows the
// explored path (a fresh detector state per execution).
//
// Happens-before edges, for the hybrid mode:
//   - go statements (Start) and waking a parked goroutine (Edge: a send to
//     a parked receiver, a receive that frees a parked sender, Signal and
//     Broadcast, the last Done, a goroutine ending under T.Run);
//   - channels that do not park: a send publishes into the channel's send
//     side and observes its receive side, a receive the opposite, close
//     publishes into the send side (so a receive is ordered after earlier
//     sends and a send after earlier receives, which covers the memory
//     model's rules, buffered semaphores included, and over-approximates
//     them: a receive is ordered after every earlier send, not only its own);
//   - WaitGroup.Add publishes, Wait observes; Once.Do's function publishes,
//     every Do observes; an atomic operation observes and publishes its
//     variable.
// Locks give no edges: the lockset covers them.

const (
	roleSend uint8 = iota
	roleRecv
	roleObject
)

func (r *run) raceOn() bool { return r.race.Mode() != eraser.Off }

func (r *run) raceStart(parent, child *thread) {
	if !r.raceOn() {
		return
	}
	p := int32(-1)
	if parent != nil {
		p = parent.idx
	}
	r.race.Start(p, child.idx)
}

func (r *run) raceEdge(from, to *thread) {
	if r.raceOn() && from != nil && from != to {
		r.race.Edge(from.idx, to.idx)
	}
}

func (r *run) racePublish(t *thread, addr unsafe.Pointer, role uint8) {
	if r.raceOn() {
		r.race.Publish(t.idx, eraser.SyncKey{Addr: uintptr(addr), Role: role})
	}
}

func (r *run) raceObserve(t *thread, addr unsafe.Pointer, role uint8) {
	if r.raceOn() {
		r.race.Observe(t.idx, eraser.SyncKey{Addr: uintptr(addr), Role: role})
	}
}

// raceChan records the edges of a channel operation that does not park.
func (r *run) raceChan(t *thread, m *chanState, send bool) {
	if !r.raceOn() {
		return
	}
	if send {
		r.racePublish(t, m.addr, roleSend)
		r.raceObserve(t, m.addr, roleRecv)
	} else {
		r.racePublish(t, m.addr, roleRecv)
		r.raceObserve(t, m.addr, roleSend)
	}
}

func (r *run) raceAcquire(t *thread, l *lockState) {
	if r.raceOn() {
		r.race.Acquire(t.idx, l.id, l.writer == t)
		for int(l.id) >= len(r.raceLocks) {
			r.raceLocks = append(r.raceLocks, nil)
		}
		r.raceLocks[l.id] = l
	}
}

func (r *run) raceRelease(t *thread, l *lockState) {
	if r.raceOn() {
		r.race.Release(t.idx, l.id)
	}
}

// raceAccess checks a plain memory access.
func (r *run) raceAccess(t *thread, addr unsafe.Pointer, size uintptr, write bool, pos Pos) {
	for _, rc := range r.race.Access(t.idx, uintptr(addr), size, write, false, uint32(pos)) {
		r.raceFinding(rc)
	}
}

// raceAtomic checks an atomic operation on the variable at addr, ordered
// with the other atomic operations on it.
func (r *run) raceAtomic(t *thread, addr unsafe.Pointer, size uintptr, write bool) {
	if !r.raceOn() {
		return
	}
	r.raceObserve(t, addr, roleObject)
	for _, rc := range r.race.Access(t.idx, uintptr(addr), size, write, true, uint32(sitePos(5))) {
		r.raceFinding(rc)
	}
	r.racePublish(t, addr, roleObject)
}

// sites caches the position of each call site of the API that comes
// without one (sync/atomic replacements, hand-written calls of Read and
// Write), found from the stack, which is slow.
var sites sync.Map // [4]uintptr -> Pos

// sitePos returns the position of the first user frame above skip frames.
// Four frames identify the call site: they reach past the scheduler's own
// frames (memory, read, Read; store, an atomic replacement) into the
// caller.
func sitePos(skip int) Pos {
	var pcs [4]uintptr
	runtime.Callers(skip, pcs[:])
	if p, ok := sites.Load(pcs); ok {
		return p.(Pos)
	}
	var all [16]uintptr
	n := runtime.Callers(skip, all[:])
	file, line := firstUserFrame(all[:n])
	if file == "" {
		file = "?"
	}
	p := RegisterPositions(file, int32(line))
	sites.Store(pcs, p)
	return p
}

// raceFinding reports a race.
func (r *run) raceFinding(rc eraser.Race) {
	cur, prev := rc.Cur, rc.Prev
	if cur.Pos == 0 {
		// Code written against the API by hand passes no position; the
		// current access is on the stack.
		cur.Pos = uint32(sitePos(4))
	}
	// The variable: as the source names it where the rewriter saw the
	// access, else by the object it lies in.
	name := Pos(cur.Pos).Expr()
	if name == "" {
		name = Pos(prev.Pos).Expr()
	}
	if name == "" {
		name = r.heap.describe(rc.Addr)
	}
	if name == "" {
		name = fmt.Sprintf("memory at %#x", rc.Addr)
	}
	g := func(a eraser.Access) Goroutine {
		return Goroutine{ID: r.threads[a.Thread].id(), State: accessKind(a), Pos: Pos(a.Pos).String(), Note: r.heldNote(a.Locks)}
	}
	f := &Finding{
		Kind:       KindRace,
		Message:    fmt.Sprintf("data race on %s: %s by %s and %s by %s", name, accessKind(cur), r.threads[cur.Thread].id(), accessKind(prev), r.threads[prev.Thread].id()),
		Pos:        Pos(cur.Pos).String(),
		Goroutines: []Goroutine{g(cur), g(prev)},
	}
	// One race per variable and test, whatever the schedule, whichever
	// access came first and whichever pair of its accesses showed it: the
	// variable is named by the source text of both accesses (with their
	// files), else by their positions.
	end := func(a eraser.Access) string {
		p := Pos(a.Pos)
		if e := p.Expr(); e != "" {
			return p.File() + ":" + e
		}
		return p.String()
	}
	ends := []string{end(cur), end(prev)}
	sort.Strings(ends)
	r.addFinding(f, "race|"+strings.Join(ends, "|"))
}

func accessKind(a eraser.Access) string {
	k := "read"
	if a.Write {
		k = "write"
	}
	if a.Atomic {
		k = "atomic " + k
	}
	return k
}

// heldNote names the locks of an access for a report.
func (r *run) heldNote(locks []int32) string {
	if len(locks) == 0 {
		return "holding no locks"
	}
	var names []string
	for _, id := range locks {
		names = append(names, r.lockName(r.raceLocks[id]))
	}
	return "holding " + strings.Join(names, ", ")
}
