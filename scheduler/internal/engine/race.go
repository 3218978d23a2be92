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

// races is the race detection of one execution: it feeds package eraser
// the execution's events (happens-before edges, locksets, accesses), keeps
// the clocks the edges need beyond the objects' own, and reports the races
// found to its host, the execution.
type races struct {
	det      *eraser.Detector // Off: no detection
	host     raceHost
	trace    bool                     // the host records a timeline (trace mode)
	locks    []*lockState             // the locks the detector has seen, by id, for reports
	mapHB    map[mapKey]*eraser.Clock // happens-before of sync.Map keys
	unprot   int                      // the detector's unprotected locations already noted
	expected []string                 // the notes of expected races made (racy.go)
}

// raceHost is what races needs of the execution to report a race: names
// for goroutines, memory and locks, and where findings and notes go.
type raceHost interface {
	goroutineID(idx int32) string
	memoryName(addr uintptr) string // "" if unknown
	lockName(l *lockState) string
	// raced is told of every race, expected or not (the store buffers'
	// passes learn racy words from it, tsoorder.go).
	raced(addr uintptr)
	// reportRace adds a race finding with its key; prevT, cur and prev are
	// the earlier access's goroutine and the two accesses' positions, for
	// the timeline.
	reportRace(f *result.Finding, key string, prevT int32, cur, prev uint32)
	note(s string)
	// tracedAccess is told of t's plain access at pos in trace mode.
	tracedAccess(t *thread, pos Pos)
}

// reset prepares rs for a new execution under mode.
func (rs *races) reset(mode eraser.Mode, host raceHost, trace bool) {
	if rs.det == nil || rs.det.Mode() != mode {
		rs.det = eraser.New(mode)
	}
	rs.det.Reset()
	rs.host, rs.trace = host, trace
	rs.locks = rs.locks[:0]
	clear(rs.mapHB)
	rs.unprot = 0
	rs.expected = rs.expected[:0]
}

func (rs *races) on() bool { return rs.det.Mode() != eraser.Off }

func (rs *races) start(parent, child *thread) {
	if !rs.on() {
		return
	}
	p := int32(-1)
	if parent != nil {
		p = parent.idx
	}
	rs.det.Start(p, child.idx)
}

func (rs *races) edge(from, to *thread) {
	if rs.on() && from != nil && from != to {
		rs.det.Edge(from.idx, to.idx)
	}
}

func (rs *races) publish(t *thread, addr unsafe.Pointer, role uint8) {
	if rs.on() {
		rs.det.Publish(t.idx, eraser.SyncKey{Addr: uintptr(addr), Role: role})
	}
}

func (rs *races) observe(t *thread, addr unsafe.Pointer, role uint8) {
	if rs.on() {
		rs.det.Observe(t.idx, eraser.SyncKey{Addr: uintptr(addr), Role: role})
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

// sendDone records that t's send on m completed, n values being in
// the buffer of capacity c before it; buffered: the value went into the
// buffer (else straight to a receiver, see raceHandOver).
func (rs *races) sendDone(t *thread, m *chanState, n, c int, buffered bool) {
	if !rs.on() || c == 0 {
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
			rs.det.Join(t.idx, h.recvs[0])
		}
	}
	rs.publish(t, m.addr, roleAnySend)
	if buffered {
		if len(h.items) != n {
			h.items = append(h.items[:0], make([]eraser.Clock, n)...)
		}
		h.items = append(h.items, rs.det.Snapshot(t.idx))
	}
}

// recvDone records that t's receive on m completed with the oldest
// buffered value, n values being in the buffer (capacity c) before it.
func (rs *races) recvDone(t *thread, m *chanState, n, c int) {
	if !rs.on() {
		return
	}
	h := &m.hb
	if len(h.items) == n && n > 0 {
		rs.det.Join(t.idx, h.items[0])
		h.items = h.items[1:]
	} else {
		// Values sent by code xbtest does not control are in the buffer:
		// order the receive after every send.
		rs.observe(t, m.addr, roleAnySend)
		h.items = h.items[:0]
		if n > 1 {
			h.items = append(h.items, make([]eraser.Clock, n-1)...)
		}
	}
	rs.recvCount(t, m, c)
}

func (rs *races) recvCount(t *thread, m *chanState, c int) {
	h := &m.hb
	h.recvd++
	if c > 0 {
		if len(h.recvs) == 0 {
			h.recvBase = h.recvd - 1
		}
		h.recvs = append(h.recvs, rs.det.Snapshot(t.idx))
	}
}

// handOver records a value passed from a sender straight to a
// receiver, one of them parked (the other is running). The send is
// synchronized before the receive's completion; on an unbuffered channel
// the receive before the send's completion too.
func (rs *races) handOver(sender, receiver *thread, m *chanState, c int) {
	if !rs.on() {
		return
	}
	rs.sendDone(sender, m, 0, c, false)
	rs.det.Edge(sender.idx, receiver.idx)
	if c == 0 {
		rs.det.Edge(receiver.idx, sender.idx)
		return
	}
	rs.recvCount(receiver, m, c)
}

// closedRecv records a receive that returned because m is closed.
func (rs *races) closedRecv(t *thread, m *chanState) { rs.observe(t, m.addr, roleClose) }

// mapKey names a key of a sync.Map (allKeys{}: all of them) for
// happens-before.
type mapKey struct {
	m   *Map
	key any
}

// mapAccess records an operation of t on key of m (allKeys{}: Range or
// Clear): it observes the writes of the key (Range: of every key; every
// operation: Clear), and a write is observed by later operations.
func (rs *races) mapAccess(t *thread, m *Map, key any, wrote bool) {
	if !rs.on() {
		return
	}
	if rs.mapHB == nil {
		rs.mapHB = map[mapKey]*eraser.Clock{}
	}
	clk := func(k any) *eraser.Clock {
		c := rs.mapHB[mapKey{m, k}]
		if c == nil {
			c = new(eraser.Clock)
			rs.mapHB[mapKey{m, k}] = c
		}
		return c
	}
	_, all := key.(allKeys)
	cleared := clk(mapCleared{})
	rs.det.Join(t.idx, *clk(key))
	rs.det.Join(t.idx, *cleared)
	if wrote {
		if all {
			rs.det.ReleaseInto(t.idx, cleared)
		} else {
			rs.det.ReleaseInto(t.idx, clk(key))
		}
		rs.det.ReleaseInto(t.idx, clk(allKeys{}))
	}
}

// mapCleared stands for the Clear operations of a Map.
type mapCleared struct{}

// locked and raceUnlocked carry the happens-before edges of a lock.
// The memory model's rules for sync.Mutex and sync.RWMutex: the nth Unlock
// before the return of the n+1th Lock and of the RLocks after it, an
// RUnlock before the next Lock's return. The clocks live in the lock's
// state (eraser.Detector's Locked and Unlocked keep them in its map).
func (rs *races) locked(t *thread, l *lockState, write bool) {
	if rs.on() {
		rs.det.Join(t.idx, l.wclock)
		if write {
			rs.det.Join(t.idx, l.rclock)
		}
	}
}

func (rs *races) unlocked(t *thread, l *lockState, write bool) {
	if rs.on() {
		if write {
			rs.det.ReleaseInto(t.idx, &l.wclock)
		} else {
			rs.det.ReleaseInto(t.idx, &l.rclock)
		}
	}
}

// acquire and raceRelease keep Eraser's locksets.
func (rs *races) acquire(t *thread, l *lockState) {
	if rs.on() {
		rs.det.Hold(t.idx, l.id, l.writer == t)
		for int(l.id) >= len(rs.locks) {
			rs.locks = append(rs.locks, nil)
		}
		rs.locks[l.id] = l
	}
}

func (rs *races) release(t *thread, l *lockState) {
	if rs.on() {
		rs.det.Unhold(t.idx, l.id)
	}
}

// access checks a plain memory access.
func (rs *races) access(t *thread, addr unsafe.Pointer, size uintptr, write bool, pos Pos) {
	for _, rc := range rs.det.Access(t.idx, uintptr(addr), size, write, false, uint32(pos)) {
		rs.finding(rc)
	}
	if rs.trace {
		rs.host.tracedAccess(t, pos)
	}
	if u := rs.det.Unprotected(); len(u) > rs.unprot {
		for _, x := range u[rs.unprot:] {
			rs.noteUnprotected(x)
		}
		rs.unprot = len(u)
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
func (rs *races) noteUnprotected(u eraser.Unprotected) {
	name := rs.locationName(u.Addr, u.Cur, u.Prev)
	at := []string{Pos(u.Cur.Pos).String()}
	if p := Pos(u.Prev.Pos).String(); u.Prev.Pos != 0 && p != at[0] {
		at = append(at, p)
	}
	sort.Strings(at)
	rs.host.note(fmt.Sprintf("unprotected but ordered: %s (%s) is shared under no common lock; happens-before orders its accesses, so it is no race, and exploration covers it (see scheduler/internal/engine/race.go)",
		name, strings.Join(at, ", ")))
}

// atomic checks an atomic operation on the variable at addr, ordered
// with the other atomic operations on it.
func (rs *races) atomic(t *thread, addr unsafe.Pointer, size uintptr, write bool) {
	if !rs.on() {
		return
	}
	rs.observe(t, addr, roleObject)
	for _, rc := range rs.det.Access(t.idx, uintptr(addr), size, write, true, uint32(sitePos(5))) {
		rs.finding(rc)
	}
	if write {
		rs.publish(t, addr, roleObject)
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

// finding reports a race.
func (rs *races) finding(rc eraser.Race) {
	rs.host.raced(rc.Addr) // every race, expected or not (tsoorder.go)
	if rs.expectedRace(rc) {
		return
	}
	cur, prev := rc.Cur, rc.Prev
	if cur.Pos == 0 {
		// Code written against the API by hand passes no position; the
		// current access is on the stack.
		cur.Pos = uint32(sitePos(4))
	}
	name := rs.locationName(rc.Addr, cur, prev)
	g := func(a eraser.Access) result.Goroutine {
		return result.Goroutine{ID: rs.host.goroutineID(a.Thread), State: accessKind(a), Pos: Pos(a.Pos).String(), Note: rs.heldNote(a.Locks)}
	}
	f := &result.Finding{
		Kind:       result.Race,
		Message:    fmt.Sprintf("data race on %s: %s by %s and %s by %s", name, accessKind(cur), rs.host.goroutineID(cur.Thread), accessKind(prev), rs.host.goroutineID(prev.Thread)),
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
	rs.host.reportRace(f, "race|"+strings.Join(ends, "|"), prev.Thread, cur.Pos, prev.Pos)
}

// locationName names the variable at addr: as the source names it where
// the rewriter saw one of the accesses, else by the object it lies in.
func (rs *races) locationName(addr uintptr, cur, prev eraser.Access) string {
	name := Pos(cur.Pos).Expr()
	if name == "" {
		name = Pos(prev.Pos).Expr()
	}
	if name == "" {
		name = rs.host.memoryName(addr)
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
func (rs *races) heldNote(locks []int32) string {
	if len(locks) == 0 {
		return "holding no locks"
	}
	var names []string
	for _, id := range locks {
		names = append(names, rs.host.lockName(rs.locks[id]))
	}
	return "holding " + strings.Join(names, ", ")
}
