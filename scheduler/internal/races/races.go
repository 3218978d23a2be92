// Package races is the race detection of the execution engine
// (scheduler/internal/engine): the engine feeds it the events of every
// execution, and it feeds package eraser; the engine is its Host, which
// names goroutines, memory, locks and source positions and takes the
// races found as findings. Goroutines are named by their thread index,
// source positions by the engine's Pos (a uint32 here).
//
// The scheduler feeds package eraser the events of every
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
//     before the completion of the k+Cth send (ChanHB);
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
package races

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/result"
)

// A Role says which clock of a synchronization object an edge goes
// through (eraser.SyncKey).
type Role = uint8

const (
	RoleSend    Role = iota // a channel's close (and a vctx's cancellation); AfterFunc
	RoleObject              // a WaitGroup, a Once, an atomic variable
	RoleAnySend             // every send on a channel, for receives that cannot be matched
	RolePool                // an item of a sync.Pool
	RoleMapKey              // a key of a sync.Map (hashed into the address)
)

// RoleClose is the role of a channel's close.
const RoleClose = RoleSend

// Races is the race detection of one execution: it feeds package eraser
// the execution's events (happens-before edges, locksets, accesses), keeps
// the clocks the edges need beyond the objects' own, and reports the races
// found to its host, the execution.
type Races struct {
	det      *eraser.Detector // Off: no detection
	host     Host
	trace    bool                     // the host records a timeline (trace mode)
	locks    []any                    // the locks the detector has seen, by id, for reports
	mapHB    map[mapKey]*eraser.Clock // happens-before of sync.Map keys
	unprot   int                      // the detector's unprotected locations already noted
	expected []string                 // the notes of expected races made (ExpectedRace)
}

// Host is what Races needs of the execution to report a race: names for
// goroutines, memory, locks and source positions, and where findings and
// notes go.
type Host interface {
	GoroutineID(idx int32) string
	MemoryName(addr uintptr) string // "" if unknown
	LockName(lock any) string       // lock as given to Acquire
	// Raced is told of every race, expected or not (the store buffers'
	// passes learn racy words from it, package storebuf).
	Raced(addr uintptr)
	// OnOwnStack reports whether addr is in the stack of the goroutine
	// making the current access (ownStack).
	OnOwnStack(addr uintptr) bool
	// ReportRace adds a race finding with its key; prevT, cur and prev are
	// the earlier access's goroutine and the two accesses' positions, for
	// the timeline.
	ReportRace(f *result.Finding, key string, prevT int32, cur, prev uint32)
	Note(s string)
	// TracedAccess is told of g's plain access at pos in trace mode.
	TracedAccess(g int32, pos uint32)
	// PosString is pos as file:line, PosFile its file, PosExpr the source
	// text of the access there ("" if unknown), RacyReason why the access
	// site races by design ("" if it does not; //xbtest:racy).
	PosString(pos uint32) string
	PosFile(pos uint32) string
	PosExpr(pos uint32) string
	RacyReason(pos uint32) string
	// SitePos is the position of the first user frame above skip frames
	// (runtime.Callers counting, from SitePos's caller's caller), for the
	// calls of the API that come without one.
	SitePos(skip int) uint32
}

// Reset prepares rs for a new execution under mode.
func (rs *Races) Reset(mode eraser.Mode, host Host, trace bool) {
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

// On reports whether races are detected.
func (rs *Races) On() bool { return rs.det.Mode() != eraser.Off }

// Mode is the detector's.
func (rs *Races) Mode() eraser.Mode { return rs.det.Mode() }

// Start: a go statement of parent (-1: none, the test) is synchronized
// before child's start.
func (rs *Races) Start(parent, child int32) {
	if !rs.On() {
		return
	}
	rs.det.Start(parent, child)
}

// Edge: what from did so far (-1: nobody) is synchronized before what to
// does next (waking a parked goroutine).
func (rs *Races) Edge(from, to int32) {
	if rs.On() && from >= 0 && from != to {
		rs.det.Edge(from, to)
	}
}

// Publish releases t's clock into the object at addr under role; Observe
// acquires it.
func (rs *Races) Publish(t int32, addr unsafe.Pointer, role Role) {
	if rs.On() {
		rs.det.Publish(t, eraser.SyncKey{Addr: uintptr(addr), Role: role})
	}
}

func (rs *Races) Observe(t int32, addr unsafe.Pointer, role Role) {
	if rs.On() {
		rs.det.Observe(t, eraser.SyncKey{Addr: uintptr(addr), Role: role})
	}
}

// ChanHB is what a channel's happens-before needs beyond its close: the
// clocks of the sends whose values sit in the buffer, and of the receives
// a later send is ordered after (the kth receive before the k+Cth send).
// The values themselves stay in the real channel; the counts match it as
// long as only rewritten code uses the channel, and are resynchronised
// from len(ch) when code xbtest does not control sent or received.
type ChanHB struct {
	items    []eraser.Clock // the buffered values' sends, oldest first
	recvs    []eraser.Clock // receives recvBase+1, recvBase+2... a send may need
	recvBase int64
	sent     int64 // sends and receives so far, direct hand-overs included
	recvd    int64
}

// SendDone records that t's send on the channel at addr (its
// happens-before h) completed, n values being in the buffer of capacity c
// before it; buffered: the value went into the buffer (else straight to a
// receiver, see HandOver).
func (rs *Races) SendDone(t int32, h *ChanHB, addr unsafe.Pointer, n, c int, buffered bool) {
	if !rs.On() || c == 0 {
		return
	}
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
			rs.det.Join(t, h.recvs[0])
		}
	}
	rs.Publish(t, addr, RoleAnySend)
	if buffered {
		if len(h.items) != n {
			h.items = append(h.items[:0], make([]eraser.Clock, n)...)
		}
		h.items = append(h.items, rs.det.Snapshot(t))
	}
}

// RecvDone records that t's receive on the channel at addr (its
// happens-before h) completed with the oldest buffered value, n values
// being in the buffer (capacity c) before it.
func (rs *Races) RecvDone(t int32, h *ChanHB, addr unsafe.Pointer, n, c int) {
	if !rs.On() {
		return
	}
	if len(h.items) == n && n > 0 {
		rs.det.Join(t, h.items[0])
		h.items = h.items[1:]
	} else {
		// Values sent by code xbtest does not control are in the buffer:
		// order the receive after every send.
		rs.Observe(t, addr, RoleAnySend)
		h.items = h.items[:0]
		if n > 1 {
			h.items = append(h.items, make([]eraser.Clock, n-1)...)
		}
	}
	rs.recvCount(t, h, c)
}

func (rs *Races) recvCount(t int32, h *ChanHB, c int) {
	h.recvd++
	if c > 0 {
		if len(h.recvs) == 0 {
			h.recvBase = h.recvd - 1
		}
		h.recvs = append(h.recvs, rs.det.Snapshot(t))
	}
}

// HandOver records a value passed from a sender straight to a
// receiver on the channel at addr (its happens-before h), one of them
// parked (the other is running). The send is synchronized before the
// receive's completion; on an unbuffered channel the receive before the
// send's completion too.
func (rs *Races) HandOver(sender, receiver int32, h *ChanHB, addr unsafe.Pointer, c int) {
	if !rs.On() {
		return
	}
	rs.SendDone(sender, h, addr, 0, c, false)
	rs.det.Edge(sender, receiver)
	if c == 0 {
		rs.det.Edge(receiver, sender)
		return
	}
	rs.recvCount(receiver, h, c)
}

// ClosedRecv records a receive that returned because the channel at addr
// is closed.
func (rs *Races) ClosedRecv(t int32, addr unsafe.Pointer) { rs.Observe(t, addr, RoleClose) }

// mapKey names a key of a sync.Map (allKeys{}: all of them) for
// happens-before.
type mapKey struct {
	m   unsafe.Pointer
	key any
}

// allKeys stands for every key of a Map.
type allKeys struct{}

// MapAccess records an operation of t on key of the sync.Map m (all:
// every key, Range or Clear): it observes the writes of the key (Range: of
// every key; every operation: Clear), and a write is observed by later
// operations.
func (rs *Races) MapAccess(t int32, m unsafe.Pointer, key any, all, wrote bool) {
	if !rs.On() {
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
	if all {
		key = allKeys{}
	}
	cleared := clk(mapCleared{})
	rs.det.Join(t, *clk(key))
	rs.det.Join(t, *cleared)
	if wrote {
		if all {
			rs.det.ReleaseInto(t, cleared)
		} else {
			rs.det.ReleaseInto(t, clk(key))
		}
		rs.det.ReleaseInto(t, clk(allKeys{}))
	}
}

// mapCleared stands for the Clear operations of a Map.
type mapCleared struct{}

// LockClocks are the clocks of a lock: of its write unlocks and its read
// unlocks.
type LockClocks struct{ W, R eraser.Clock }

// Locked and Unlocked carry the happens-before edges of a lock (its
// clocks l). The memory model's rules for sync.Mutex and sync.RWMutex:
// the nth Unlock before the return of the n+1th Lock and of the RLocks
// after it, an RUnlock before the next Lock's return. The clocks live in
// the lock's state (eraser.Detector's Locked and Unlocked keep them in its
// map).
func (rs *Races) Locked(t int32, l *LockClocks, write bool) {
	if rs.On() {
		rs.det.Join(t, l.W)
		if write {
			rs.det.Join(t, l.R)
		}
	}
}

func (rs *Races) Unlocked(t int32, l *LockClocks, write bool) {
	if rs.On() {
		if write {
			rs.det.ReleaseInto(t, &l.W)
		} else {
			rs.det.ReleaseInto(t, &l.R)
		}
	}
}

// Acquire and Release keep Eraser's locksets: t holds the lock numbered
// id (writer: for writing), which reports name with Host.LockName(lock).
func (rs *Races) Acquire(t, id int32, writer bool, lock any) {
	if rs.On() {
		rs.det.Hold(t, id, writer)
		for int(id) >= len(rs.locks) {
			rs.locks = append(rs.locks, nil)
		}
		rs.locks[id] = lock
	}
}

func (rs *Races) Release(t, id int32) {
	if rs.On() {
		rs.det.Unhold(t, id)
	}
}

// Access checks a plain memory access of t at pos. One to t's own stack
// is neither checked nor recorded (ownStack).
func (rs *Races) Access(t int32, addr unsafe.Pointer, size uintptr, write bool, pos uint32) {
	if rs.On() && !rs.ownStack(addr) {
		for _, rc := range rs.det.Access(t, uintptr(addr), size, write, false, pos) {
			rs.finding(rc)
		}
	}
	if rs.trace {
		rs.host.TracedAccess(t, pos)
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
func (rs *Races) noteUnprotected(u eraser.Unprotected) {
	name := rs.locationName(u.Addr, u.Cur, u.Prev)
	at := []string{rs.host.PosString(u.Cur.Pos)}
	if p := rs.host.PosString(u.Prev.Pos); u.Prev.Pos != 0 && p != at[0] {
		at = append(at, p)
	}
	sort.Strings(at)
	rs.host.Note(fmt.Sprintf("unprotected but ordered: %s (%s) is shared under no common lock; happens-before orders its accesses, so it is no race, and exploration covers it (see scheduler/internal/races)",
		name, strings.Join(at, ", ")))
}

// Forget drops the history of size bytes at addr: a new object took the
// place of a dead one there, and its accesses are not the old one's (as Go's
// race detector clears its shadow memory at an allocation).
func (rs *Races) Forget(addr, size uintptr) { rs.det.Forget(addr, size) }

// Atomic checks an atomic operation of t on the variable at addr, ordered
// with the other atomic operations on it.
func (rs *Races) Atomic(t int32, addr unsafe.Pointer, size uintptr, write bool) {
	if !rs.On() {
		return
	}
	rs.Observe(t, addr, RoleObject)
	if !rs.ownStack(addr) {
		for _, rc := range rs.det.Access(t, uintptr(addr), size, write, true, rs.host.SitePos(6)) {
			rs.finding(rc)
		}
	}
	if write {
		rs.Publish(t, addr, RoleObject)
	}
}

// ownStack reports whether addr is in the stack of the goroutine making
// the access, which is then neither checked nor recorded. A variable on a
// goroutine's stack is that goroutine's alone (one whose address another
// goroutine could reach escapes to the heap), so it races with nothing;
// but its address has other lives, and an access in one must not be
// paired with an access in another:
//   - before: another goroutine's earlier access there was to another
//     variable, a pooled goroutine's that ran an ended one (engine,
//     worker), or one on a stack that moved when it grew;
//   - after: a stack that moved is freed, and its memory goes back to the
//     heap at once, with no collection in between (runtime/stack.go:
//     stackfree, a stack of 32 KiB or more; stackpoolfree, the last
//     stack of a span), so another goroutine's later access there may be
//     to a heap object allocated in it.
//
// Go's race detector forgets a stack's history when it is allocated
// (racemalloc in stackalloc); xbtest sees no allocation, so it keeps no
// history of a stack at all.
func (rs *Races) ownStack(addr unsafe.Pointer) bool {
	return rs.host.OnOwnStack(uintptr(addr))
}

// finding reports a race.
func (rs *Races) finding(rc eraser.Race) {
	rs.host.Raced(rc.Addr) // every race, expected or not (package storebuf)
	if rs.expectedRace(rc) {
		return
	}
	cur, prev := rc.Cur, rc.Prev
	if cur.Pos == 0 {
		// Code written against the API by hand passes no position; the
		// current access is on the stack.
		cur.Pos = rs.host.SitePos(5)
	}
	name := rs.locationName(rc.Addr, cur, prev)
	g := func(a eraser.Access) result.Goroutine {
		return result.Goroutine{ID: rs.host.GoroutineID(a.Thread), State: accessKind(a), Pos: rs.host.PosString(a.Pos), Note: rs.heldNote(a.Locks)}
	}
	f := &result.Finding{
		Kind:       result.Race,
		Message:    fmt.Sprintf("data race on %s: %s by %s and %s by %s", name, accessKind(cur), rs.host.GoroutineID(cur.Thread), accessKind(prev), rs.host.GoroutineID(prev.Thread)),
		Pos:        rs.host.PosString(cur.Pos),
		Goroutines: []result.Goroutine{g(cur), g(prev)},
	}
	// One race per variable and test, whatever the schedule, whichever
	// access came first and whichever pair of its accesses showed it: the
	// variable is named by the source text of both accesses (with their
	// files), else by their positions.
	end := func(a eraser.Access) string {
		if e := rs.host.PosExpr(a.Pos); e != "" {
			return rs.host.PosFile(a.Pos) + ":" + e
		}
		return rs.host.PosString(a.Pos)
	}
	ends := []string{end(cur), end(prev)}
	sort.Strings(ends)
	rs.host.ReportRace(f, "race|"+strings.Join(ends, "|"), prev.Thread, cur.Pos, prev.Pos)
}

// locationName names the variable at addr: as the source names it where
// the rewriter saw one of the accesses, else by the object it lies in.
func (rs *Races) locationName(addr uintptr, cur, prev eraser.Access) string {
	name := rs.host.PosExpr(cur.Pos)
	if name == "" {
		name = rs.host.PosExpr(prev.Pos)
	}
	if name == "" {
		name = rs.host.MemoryName(addr)
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
func (rs *Races) heldNote(locks []int32) string {
	if len(locks) == 0 {
		return "holding no locks"
	}
	var names []string
	for _, id := range locks {
		names = append(names, rs.host.LockName(rs.locks[id]))
	}
	return "holding " + strings.Join(names, ", ")
}

// expectedRace notes a race one of whose accesses is at a racy site
// (//xbtest:racy, the engine's racy.go), and reports whether it was one.
func (rs *Races) expectedRace(rc eraser.Race) bool {
	h := rs.host
	cur, prev := rc.Cur.Pos, rc.Prev.Pos
	site := cur
	why := h.RacyReason(cur)
	if w := h.RacyReason(prev); w != "" && (why == "" || h.PosExpr(prev) < h.PosExpr(cur)) {
		site, why = prev, w
	}
	if why == "" {
		return false
	}
	// One note per variable: named by the racy site's file and source
	// text (which access came first varies with the schedule).
	name := h.PosExpr(site)
	if name == "" {
		name = h.PosString(site)
	} else {
		name = h.PosFile(site) + ": " + name
	}
	note := fmt.Sprintf("expected race (//xbtest:racy %s): %s", why, name)
	if !slices.Contains(rs.expected, note) {
		rs.expected = append(rs.expected, note)
		rs.host.Note(note)
	}
	return true
}
