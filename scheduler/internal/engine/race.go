package engine

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/result"
)

// Race detection: the scheduler feeds package eraser the events of every
// execution, replayed prefix included, so its state always follows the
// explored path (a fresh detector state per execution). A race is a data
// race as the Go memory model defines it; the edges of happens-before are
// the model's ("The Go Memory Model", go.dev/ref/mem):
//   - a go statement is synchronized before the goroutine's start (Start);
//     a goroutine's exit before nothing, but T.Run's wait for its subtest;
//   - locks: the nth Unlock of a Mutex or RWMutex before the return of the
//     n+1th Lock, and of every RLock after it; an RUnlock before the next
//     Lock's return (Locked, Unlocked); TryLock when it succeeds;
//   - channels, exactly: a send before the completion of the receive that
//     gets its value; the close before a receive that returns because the
//     channel is closed; on an unbuffered channel the receive before the
//     completion of its send; the kth receive on a channel of capacity C
//     before the completion of the k+Cth send (chanHB);
//   - waking a parked goroutine (Edge): a send to a parked receiver, a
//     receive that frees a parked sender, Cond.Signal and Broadcast, the
//     Done that releases a Wait, the last RUnlock a pending Lock waits for;
//   - WaitGroup: a Done (a negative Add) before the return of the Wait it
//     unblocks; Once: the completion of f before every Do returns;
//   - atomics: an atomic write (store, add, swap, compare-and-swap) before
//     every later atomic operation on the variable, whose effect it
//     observes (the variable's clock: acquired by every operation,
//     released into by writes);
//   - sync.Map: a write of a key before the operations that observe it;
//     sync.Pool: a Put before the Get that returns the item; contexts: the
//     cancellation before Err, Done receives and AfterFunc's function;
//     AfterFunc before its function.
//
// Channels made by code xbtest does not control carry a coarser edge: every
// send into them before every later receive.

const (
	roleSend    uint8 = iota // a channel's close (and a vctx's cancellation); AfterFunc
	roleObject               // a WaitGroup, a Once, an atomic variable
	roleAnySend              // every send on a channel, for receives that cannot be matched
	rolePool                 // an item of a sync.Pool
	roleMapKey               // a key of a sync.Map (hashed into the address)
)

// roleClose is the role of a channel's close.
const roleClose = roleSend

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

// chanHB is what a channel's happens-before needs beyond its close: the
// clocks of the sends whose values sit in the buffer, and of the receives
// a later send is ordered after (the kth receive before the k+Cth send).
// The values themselves stay in the real channel; the counts match it as
// long as only rewritten code uses the channel, and are resynchronised
// from len(ch) when code xbtest does not control sent or received.
type chanHB struct {
	items    []eraser.Clock // the buffered values' sends, oldest first
	recvs    []eraser.Clock // receives recvBase+1, recvBase+2... a send may need
	recvBase int64
	sent     int64 // sends and receives so far, direct hand-overs included
	recvd    int64
}

// raceSendDone records that t's send on m completed, n values being in
// the buffer of capacity c before it; buffered: the value went into the
// buffer (else straight to a receiver, see raceHandOver).
func (r *run) raceSendDone(t *thread, m *chanState, n, c int, buffered bool) {
	if !r.raceOn() || c == 0 {
		return
	}
	h := &m.hb
	if buffered && h.sent-h.recvd != int64(n) {
		h.sent = h.recvd + int64(n) // code xbtest does not control used it
	}
	h.sent++
	if k := h.sent - int64(c); k > 0 {
		for h.recvBase+1 < k && len(h.recvs) > 0 {
			h.recvs = h.recvs[1:]
			h.recvBase++
		}
		if len(h.recvs) > 0 && h.recvBase+1 == k {
			r.race.Join(t.idx, h.recvs[0])
		}
	}
	r.racePublish(t, m.addr, roleAnySend)
	if buffered {
		if len(h.items) != n {
			h.items = append(h.items[:0], make([]eraser.Clock, n)...)
		}
		h.items = append(h.items, r.race.Snapshot(t.idx))
	}
}

// raceRecvDone records that t's receive on m completed with the oldest
// buffered value, n values being in the buffer (capacity c) before it.
func (r *run) raceRecvDone(t *thread, m *chanState, n, c int) {
	if !r.raceOn() {
		return
	}
	h := &m.hb
	if len(h.items) == n && n > 0 {
		r.race.Join(t.idx, h.items[0])
		h.items = h.items[1:]
	} else {
		// Values sent by code xbtest does not control are in the buffer:
		// order the receive after every send.
		r.raceObserve(t, m.addr, roleAnySend)
		h.items = h.items[:0]
		if n > 1 {
			h.items = append(h.items, make([]eraser.Clock, n-1)...)
		}
	}
	r.raceRecvCount(t, m, c)
}

func (r *run) raceRecvCount(t *thread, m *chanState, c int) {
	h := &m.hb
	h.recvd++
	if c > 0 {
		if len(h.recvs) == 0 {
			h.recvBase = h.recvd - 1
		}
		h.recvs = append(h.recvs, r.race.Snapshot(t.idx))
	}
}

// raceHandOver records a value passed from a sender straight to a
// receiver, one of them parked (the other is running). The send is
// synchronized before the receive's completion; on an unbuffered channel
// the receive before the send's completion too.
func (r *run) raceHandOver(sender, receiver *thread, m *chanState, c int) {
	if !r.raceOn() {
		return
	}
	r.raceSendDone(sender, m, 0, c, false)
	r.race.Edge(sender.idx, receiver.idx)
	if c == 0 {
		r.race.Edge(receiver.idx, sender.idx)
		return
	}
	r.raceRecvCount(receiver, m, c)
}

// raceClosedRecv records a receive that returned because m is closed.
func (r *run) raceClosedRecv(t *thread, m *chanState) { r.raceObserve(t, m.addr, roleClose) }

// mapKey names a key of a sync.Map (allKeys{}: all of them) for
// happens-before.
type mapKey struct {
	m   *Map
	key any
}

// raceMap records an operation of t on key of m (allKeys{}: Range or
// Clear): it observes the writes of the key (Range: of every key; every
// operation: Clear), and a write is observed by later operations.
func (r *run) raceMap(t *thread, m *Map, key any, wrote bool) {
	if !r.raceOn() {
		return
	}
	if r.mapHB == nil {
		r.mapHB = map[mapKey]*eraser.Clock{}
	}
	clk := func(k any) *eraser.Clock {
		c := r.mapHB[mapKey{m, k}]
		if c == nil {
			c = new(eraser.Clock)
			r.mapHB[mapKey{m, k}] = c
		}
		return c
	}
	_, all := key.(allKeys)
	cleared := clk(mapCleared{})
	r.race.Join(t.idx, *clk(key))
	r.race.Join(t.idx, *cleared)
	if wrote {
		if all {
			r.race.ReleaseInto(t.idx, cleared)
		} else {
			r.race.ReleaseInto(t.idx, clk(key))
		}
		r.race.ReleaseInto(t.idx, clk(allKeys{}))
	}
}

// mapCleared stands for the Clear operations of a Map.
type mapCleared struct{}

// raceLocked and raceUnlocked carry the happens-before edges of a lock.
// The memory model's rules for sync.Mutex and sync.RWMutex: the nth Unlock
// before the return of the n+1th Lock and of the RLocks after it, an
// RUnlock before the next Lock's return. The clocks live in the lock's
// state (eraser.Detector's Locked and Unlocked keep them in its map).
func (r *run) raceLocked(t *thread, l *lockState, write bool) {
	if r.raceOn() {
		r.race.Join(t.idx, l.wclock)
		if write {
			r.race.Join(t.idx, l.rclock)
		}
	}
}

func (r *run) raceUnlocked(t *thread, l *lockState, write bool) {
	if r.raceOn() {
		if write {
			r.race.ReleaseInto(t.idx, &l.wclock)
		} else {
			r.race.ReleaseInto(t.idx, &l.rclock)
		}
	}
}

// raceAcquire and raceRelease keep Eraser's locksets.
func (r *run) raceAcquire(t *thread, l *lockState) {
	if r.raceOn() {
		r.race.Hold(t.idx, l.id, l.writer == t)
		for int(l.id) >= len(r.raceLocks) {
			r.raceLocks = append(r.raceLocks, nil)
		}
		r.raceLocks[l.id] = l
	}
}

func (r *run) raceRelease(t *thread, l *lockState) {
	if r.raceOn() {
		r.race.Unhold(t.idx, l.id)
	}
}

// raceAccess checks a plain memory access.
func (r *run) raceAccess(t *thread, addr unsafe.Pointer, size uintptr, write bool, pos Pos) {
	for _, rc := range r.race.Access(t.idx, uintptr(addr), size, write, false, uint32(pos)) {
		r.raceFinding(rc)
	}
	if r.trace {
		r.traceAccess(t, pos)
	}
	if u := r.race.Unprotected(); len(u) > r.unprot {
		for _, x := range u[r.unprot:] {
			r.noteUnprotected(x)
		}
		r.unprot = len(u)
	}
}

// noteUnprotected says, for -v, that a location follows no locking
// discipline although happens-before orders its accesses.
//
// Why exploration stays sound for it. ExitBlock's theorem assumes every
// shared location is protected by a lock; this one is handed over by other
// synchronization (a channel, a WaitGroup, a lock's hand-over of a flag).
// What the theorem needs of the data is that its accesses commute with the
// other goroutines' operations between two synchronization points, which
// holds for every location no execution races on: an access that
// happens-before orders after another goroutine's is separated from it by
// a chain of synchronization operations, and an explored schedule ends a
// block at each synchronization operation that is not a right mover
// (Lipton's reduction: lock enters are, the others end blocks). So moving a
// race-free access to the scheduling point before it changes no outcome,
// and the orders of blocks cover every behaviour. A location an execution
// does race on is reported as a race on that execution (the detector is
// exact), so it is never silently under-explored. Hence no extra
// scheduling points for these locations; -v names them.
func (r *run) noteUnprotected(u eraser.Unprotected) {
	name := r.locationName(u.Addr, u.Cur, u.Prev)
	at := []string{Pos(u.Cur.Pos).String()}
	if p := Pos(u.Prev.Pos).String(); u.Prev.Pos != 0 && p != at[0] {
		at = append(at, p)
	}
	sort.Strings(at)
	r.notes = append(r.notes, fmt.Sprintf("unprotected but ordered: %s (%s) is shared under no common lock; happens-before orders its accesses, so it is no race, and exploration covers it (see scheduler/internal/engine/race.go)",
		name, strings.Join(at, ", ")))
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
	if write {
		r.racePublish(t, addr, roleObject)
	}
}

// sites caches the position of each call site of the API that comes
// without one (sync/atomic replacements, hand-written calls of Read and
// Write), found from the stack, which is slow.
var sites sync.Map // [5]uintptr -> Pos

// sitePos returns the position of the first user frame above skip frames.
// Five frames identify the call site: they reach past the scheduler's own
// frames (memory, read, Read, and package scheduler's Read forwarding to
// it; store, an atomic replacement and its forwarder) into the caller.
func sitePos(skip int) Pos {
	var pcs [5]uintptr
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
	r.learnRacy(rc.Addr) // every race, expected or not (tsoorder.go)
	if r.expectedRace(rc) {
		return
	}
	cur, prev := rc.Cur, rc.Prev
	if cur.Pos == 0 {
		// Code written against the API by hand passes no position; the
		// current access is on the stack.
		cur.Pos = uint32(sitePos(4))
	}
	name := r.locationName(rc.Addr, cur, prev)
	g := func(a eraser.Access) result.Goroutine {
		return result.Goroutine{ID: r.threads[a.Thread].id(), State: accessKind(a), Pos: Pos(a.Pos).String(), Note: r.heldNote(a.Locks)}
	}
	f := &result.Finding{
		Kind:       result.Race,
		Message:    fmt.Sprintf("data race on %s: %s by %s and %s by %s", name, accessKind(cur), r.threads[cur.Thread].id(), accessKind(prev), r.threads[prev.Thread].id()),
		Pos:        Pos(cur.Pos).String(),
		Goroutines: []result.Goroutine{g(cur), g(prev)},
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
	if r.trace {
		r.traceRace(f, prev.Thread, cur.Pos, prev.Pos)
	}
}

// locationName names the variable at addr: as the source names it where
// the rewriter saw one of the accesses, else by the object it lies in.
func (r *run) locationName(addr uintptr, cur, prev eraser.Access) string {
	name := Pos(cur.Pos).Expr()
	if name == "" {
		name = Pos(prev.Pos).Expr()
	}
	if name == "" {
		name = r.heap.describe(addr)
	}
	if name == "" {
		name = fmt.Sprintf("memory at %#x", addr)
	}
	return name
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
