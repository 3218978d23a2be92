// Package eraser detects data races on one execution of a program.
//
// By default (HB) a race is what the Go memory model calls one: two
// conflicting accesses to a memory location (at least one a write, not both
// atomic) by different goroutines that are not ordered by happens-before.
// Happens-before is tracked with vector clocks (Lamport; the precise
// detectors DJIT+ and FastTrack of Flanagan and Freund, PLDI 2009, keep the
// same per-location history): the scheduler reports every synchronization
// edge the memory model gives (lock releases and acquisitions, channels,
// WaitGroup, Once, Cond, atomics, goroutine start, sync.Map, contexts), so
// an ordering a program builds on a mutex (a semaphore, a pool, a hand-over
// under a lock) is an ordering, not a race, and two accesses under different
// locks race.
//
// Eraser's lockset algorithm (Savage et al., 1997; the thesis runs it beside
// ExitBlock, sections 2.1.1 and 3.2) runs alongside. In HB mode it does not
// report races; it finds the locations that do not follow a locking
// discipline although happens-before orders their accesses (data handed
// over through a channel, a WaitGroup, a lock's hand-over). The thesis's
// ExitBlock assumes the discipline; the scheduler explains why exploration
// stays sound for those locations and lists them (see Unprotected). In
// Lockset mode, pure Eraser reports an empty lockset in the shared-modified
// state, as the thesis did:
//
//	virgin --first access by t--> exclusive(t)
//	exclusive(t) --access by t--> exclusive(t)
//	exclusive(t) --read by u--> shared,          C(v) := locks held by u
//	exclusive(t) --write by u--> shared-modified, C(v) := locks u holds for writing
//	shared --read--> shared, C(v) refined; --write--> shared-modified, refined
//	shared-modified: C(v) refined on every access; empty: a possible race
//
// Refinement intersects C(v) with the locks held, in any mode for a read and
// in write mode for a write (an RWMutex read lock does not protect a write).
// Atomic operations hold a pseudo-lock of their own, so two atomic accesses
// never race while an atomic and a plain access do.
//
// A Detector follows one execution: the explorer starts a fresh one (Reset)
// for every execution, so it always follows the explored path, whatever the
// way of backing up.
package eraser

import (
	"fmt"
	"slices"
	"unsafe"
)

// Mode selects the algorithm.
type Mode uint8

const (
	// Off detects nothing.
	Off Mode = iota
	// HB reports races as the Go memory model defines them (the default).
	HB
	// Lockset is the pure Eraser algorithm.
	Lockset
)

var modeNames = [...]string{"off", "hb", "lockset"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses the values of xbtest's -race flag. "hybrid", the name of
// the default before it followed the memory model, is read as HB, so that
// older schedule files replay.
func ParseMode(s string) (Mode, error) {
	if s == "hybrid" {
		return HB, nil
	}
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return Off, fmt.Errorf("unknown race detection %q (want hb, lockset or off)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// State is a location's Eraser state.
type State uint8

const (
	Virgin State = iota
	Exclusive
	Shared
	SharedModified
)

func (s State) String() string {
	return [...]string{"virgin", "exclusive", "shared", "shared-modified"}[s]
}

// AtomicLock is the pseudo-lock every atomic operation holds.
const AtomicLock int32 = -1

// Access is one memory access, as a race report shows it.
type Access struct {
	Thread int32
	Write  bool
	Atomic bool
	Pos    uint32  // the scheduler's position number
	Locks  []int32 // the locks the goroutine held (any mode), without AtomicLock
}

// Race is a pair of conflicting accesses.
type Race struct {
	Addr uintptr
	Prev Access // the earlier access
	Cur  Access // the access that completed the race
}

// word is the granularity at which large accesses are split.
const word = 8

// maxWords bounds the words of one access that are checked (a copy of a
// large array checks its beginning only).
const maxWords = 64

// SyncKey names an object that carries happens-before edges: a channel's
// send or receive side, a WaitGroup, a Once, an atomic variable, a lock.
type SyncKey struct {
	Addr uintptr
	Role uint8
}

// Clock is a snapshot of a goroutine's vector clock, released into an
// object that keeps it (a value in a channel's buffer, a freed buffer slot)
// and acquired later (Join). The zero Clock orders nothing.
type Clock struct{ c clock }

// Detector follows one execution.
type Detector struct {
	mode    Mode
	threads []*threadState    // reused across executions
	locs    map[uintptr]int32 // index into pool
	pool    []location        // reused across executions
	syncs   map[SyncKey]int32 // index into syncClocks
	// syncClocks are the objects' clocks, their storage reused across
	// executions (a clock per object per execution was most of the
	// detector's allocations).
	syncClocks []clock
	sets       map[string][]int32 // interned lock sets, shared by records
	singles    [][]int32          // interned sets of one lock l >= AtomicLock, at l-AtomicLock
	scratch    []int32
	// cache maps recently accessed words to their index in pool; an
	// entry is valid in the execution its gen names (Reset moves gen on
	// instead of clearing it).
	cache [256]cacheEntry
	gen   uint32
	// unprotected lists the locations that broke the locking discipline
	// without a race (HB mode), in the order found.
	unprotected []Unprotected
}

// Unprotected is a location whose accesses follow no locking discipline
// (its lockset became empty while goroutines shared it) but are ordered by
// happens-before: not a race.
type Unprotected struct {
	Addr uintptr
	Prev Access // an earlier access of another goroutine
	Cur  Access // the access that emptied the lockset
}

type cacheEntry struct {
	addr uintptr
	li   int32
	gen  uint32
}

type threadState struct {
	vc    clock
	held  []hold // locks held, in acquisition order
	start bool
	// protection and held-lock sets, cached until the locks held change
	prot  [4][]int32 // by write + 2*atomic
	valid [4]bool
	ids   []int32
	idsOK bool
}

type hold struct {
	lock  int32
	write bool
}

// record is the last access of one kind (read or write, plain or atomic)
// of a location by one goroutine.
type record struct {
	Access
	epoch uint32  // the goroutine's own clock at the access
	prot  []int32 // the locks protecting it (write mode for a write), sorted
	order uint32  // recency among the location's records
}

type location struct {
	// Eraser's state.
	state State
	owner int32
	cset  []int32 // candidate lockset, sorted
	// recs are, per goroutine, the last plain read, plain write, atomic
	// read and atomic write since the last write that every earlier
	// access happens before.
	recs     []record
	seq      uint32
	reported bool // a race was reported (once per location and execution)
	noted    bool // listed as unprotected
}

// New returns a detector for one execution.
func New(mode Mode) *Detector {
	return &Detector{mode: mode, locs: map[uintptr]int32{}, syncs: map[SyncKey]int32{}, sets: map[string][]int32{}, gen: 1}
}

// Mode returns the detector's mode.
func (d *Detector) Mode() Mode {
	if d == nil {
		return Off
	}
	return d.mode
}

// Reset forgets everything, for a new execution.
func (d *Detector) Reset() {
	for _, ts := range d.threads {
		*ts = threadState{vc: ts.vc[:0], held: ts.held[:0]}
	}
	clear(d.locs)
	if d.gen++; d.gen == 0 {
		// After 2^32 executions, entries of generation 1 could look valid.
		d.cache, d.gen = [len(d.cache)]cacheEntry{}, 1
	}
	for i := range d.pool {
		l := &d.pool[i]
		*l = location{cset: l.cset[:0], recs: l.recs[:0]}
	}
	d.pool = d.pool[:0]
	clear(d.syncs)
	d.syncClocks = d.syncClocks[:0]
	d.unprotected = d.unprotected[:0]
}

func (d *Detector) thread(t int32) *threadState {
	for int(t) >= len(d.threads) {
		d.threads = append(d.threads, &threadState{})
	}
	ts := d.threads[t]
	if !ts.start {
		ts.start = true
		ts.vc = ts.vc.set(t, 1)
	}
	return ts
}

func (ts *threadState) changed() { ts.valid, ts.idsOK = [4]bool{}, false }

// Start records that parent (-1 for the first goroutine) started child:
// everything parent did so far happens before everything child does.
func (d *Detector) Start(parent, child int32) {
	c := d.thread(child)
	if parent < 0 {
		return
	}
	p := d.thread(parent)
	c.vc = c.vc.join(p.vc)
	p.vc = p.vc.tick(parent)
}

// Edge records that what from did so far happens before what to does next
// (from woke to: a send to a parked receiver, a Signal, the last Done).
func (d *Detector) Edge(from, to int32) {
	f, t := d.thread(from), d.thread(to)
	t.vc = t.vc.join(f.vc)
	f.vc = f.vc.tick(from)
}

// Publish releases t's clock into the object k: a later Observe of k by
// another goroutine orders it after everything t did so far.
func (d *Detector) Publish(t int32, k SyncKey) {
	ts := d.thread(t)
	i, ok := d.syncs[k]
	if !ok {
		i = int32(len(d.syncClocks))
		if len(d.syncClocks) < cap(d.syncClocks) {
			d.syncClocks = d.syncClocks[:i+1]
			d.syncClocks[i] = d.syncClocks[i][:0]
		} else {
			d.syncClocks = append(d.syncClocks, nil)
		}
		d.syncs[k] = i
	}
	d.syncClocks[i] = d.syncClocks[i].join(ts.vc)
	ts.vc = ts.vc.tick(t)
}

// Observe acquires the clock of the object k into t.
func (d *Detector) Observe(t int32, k SyncKey) {
	if i, ok := d.syncs[k]; ok {
		ts := d.thread(t)
		ts.vc = ts.vc.join(d.syncClocks[i])
	}
}

// Snapshot releases t's clock into a Clock the caller keeps (a value put
// into a channel's buffer).
func (d *Detector) Snapshot(t int32) Clock {
	ts := d.thread(t)
	c := Clock{slices.Clone(ts.vc)}
	ts.vc = ts.vc.tick(t)
	return c
}

// Reset empties c, keeping its storage for the next execution.
func (c *Clock) Reset() { c.c = c.c[:0] }

// Join acquires c into t.
func (d *Detector) Join(t int32, c Clock) {
	if len(c.c) > 0 {
		ts := d.thread(t)
		ts.vc = ts.vc.join(c.c)
	}
}

// ReleaseInto merges t's clock into *c, which the caller keeps (a sync.Map
// key): a later Join of it orders the joining goroutine after everything t
// did so far.
func (d *Detector) ReleaseInto(t int32, c *Clock) {
	ts := d.thread(t)
	c.c = c.c.join(ts.vc)
	ts.vc = ts.vc.tick(t)
}

// lockRoles of the SyncKeys of a lock: an RWMutex's Unlock releases into
// the writer's clock, RUnlock into the readers' (Lock acquires both, RLock
// only the writer's), as the memory model's rules for sync.RWMutex say.
const (
	roleLockW uint8 = 200 + iota
	roleLockR
)

// Locked records that t acquired lock (write: a Mutex, or an RWMutex's
// Lock; else RLock): it is ordered after the releases the memory model
// orders it after. Hold (lockset) is separate: a pending RWMutex writer
// holds the lock for Eraser before it owns it.
func (d *Detector) Locked(t, lock int32, write bool) {
	d.Observe(t, SyncKey{Addr: uintptr(lock), Role: roleLockW})
	if write {
		d.Observe(t, SyncKey{Addr: uintptr(lock), Role: roleLockR})
	}
}

// Unlocked records that t released lock (write: Unlock; else RUnlock). In
// Go any goroutine may unlock a mutex: the edge starts at the one that did.
func (d *Detector) Unlocked(t, lock int32, write bool) {
	role := roleLockR
	if write {
		role = roleLockW
	}
	d.Publish(t, SyncKey{Addr: uintptr(lock), Role: role})
}

// Hold records that t holds lock (in write mode for a Mutex or an
// RWMutex's Lock), for the lockset.
func (d *Detector) Hold(t, lock int32, write bool) {
	ts := d.thread(t)
	ts.held = append(ts.held, hold{lock, write})
	ts.changed()
}

// Unhold records that t gave up one hold of lock, for the lockset.
func (d *Detector) Unhold(t, lock int32) {
	ts := d.thread(t)
	for i := len(ts.held) - 1; i >= 0; i-- {
		if ts.held[i].lock == lock {
			ts.held = slices.Delete(ts.held, i, i+1)
			ts.changed()
			return
		}
	}
}

// heldIDs returns, sorted, the locks ts holds in any mode. The slice is
// shared and never modified.
func (d *Detector) heldIDs(ts *threadState) []int32 {
	if !ts.idsOK {
		b := d.scratch[:0]
		for _, h := range ts.held {
			if !slices.Contains(b, h.lock) {
				b = append(b, h.lock)
			}
		}
		ts.ids, ts.idsOK = d.intern(b), true
	}
	return ts.ids
}

// protection returns, sorted, the locks that protect an access of ts: all
// held locks for a read, those held for writing for a write, plus
// AtomicLock for an atomic operation. The slice is shared and never
// modified.
func (d *Detector) protection(ts *threadState, write, atomic bool) []int32 {
	k := 0
	if write {
		k++
	}
	if atomic {
		k += 2
	}
	if ts.valid[k] {
		return ts.prot[k]
	}
	b := d.scratch[:0]
	if atomic {
		b = append(b, AtomicLock)
	}
	for _, h := range ts.held {
		if (h.write || !write) && !slices.Contains(b, h.lock) {
			b = append(b, h.lock)
		}
	}
	ts.prot[k], ts.valid[k] = d.intern(b), true
	return ts.prot[k]
}

// maxSingle bounds the table of interned one-lock sets.
const maxSingle = 1 << 12

// intern sorts the set b (scratch space) and returns the shared copy of
// it: lock sets change at every lock operation, and allocating each would
// dominate the cost of detection.
func (d *Detector) intern(b []int32) []int32 {
	d.scratch = b
	if len(b) == 0 {
		return nil
	}
	if len(b) == 1 && b[0] >= AtomicLock && b[0]-AtomicLock < maxSingle {
		// The common case (one mutex held, or an atomic operation)
		// without hashing.
		i := int(b[0] - AtomicLock)
		if i >= len(d.singles) {
			d.singles = append(d.singles, make([][]int32, i+1-len(d.singles))...)
		}
		if d.singles[i] == nil {
			d.singles[i] = []int32{b[0]}
		}
		return d.singles[i]
	}
	slices.Sort(b)
	key := unsafe.String((*byte)(unsafe.Pointer(&b[0])), len(b)*4)
	if set, ok := d.sets[key]; ok {
		return set
	}
	set := slices.Clone(b)
	d.sets[string(unsafe.Slice((*byte)(unsafe.Pointer(&set[0])), len(set)*4))] = set
	return set
}

// Access records that t accessed size bytes at addr and returns the races
// it completes (at most one per location and execution).
func (d *Detector) Access(t int32, addr, size uintptr, write, atomic bool, pos uint32) []Race {
	if d == nil || d.mode == Off {
		return nil
	}
	if size == 0 {
		size = 1
	}
	// The words of one access share everything but the address.
	ts := d.thread(t)
	cur := record{Access: Access{Thread: t, Write: write, Atomic: atomic, Pos: pos}, epoch: ts.vc.get(t)}
	cur.prot = d.protection(ts, write, atomic)
	if len(ts.held) > 0 {
		cur.Locks = d.heldIDs(ts)
	}
	var races []Race
	n := (size + word - 1) / word
	for i := uintptr(0); i < min(n, maxWords); i++ {
		races = d.access(ts, addr+i*word, &cur, races)
	}
	return races
}

// Forget drops the history of the size bytes at addr (the words whose
// address is in the range): a new object took the place of a dead one,
// whose accesses are not the new one's.
func (d *Detector) Forget(addr, size uintptr) {
	if d == nil || d.mode == Off || len(d.locs) == 0 {
		return
	}
	end := addr + size
	forget := func(li int32) {
		l := &d.pool[li]
		*l = location{cset: l.cset[:0], recs: l.recs[:0]}
	}
	if size <= uintptr(len(d.locs)) {
		for a := addr; a < end; a++ { // accesses may start at any byte
			if li, ok := d.locs[a]; ok {
				forget(li)
			}
		}
		return
	}
	for a, li := range d.locs {
		if addr <= a && a < end {
			forget(li)
		}
	}
}

// Unprotected returns the locations found so far in this execution that
// follow no locking discipline but are ordered by happens-before (HB mode).
func (d *Detector) Unprotected() []Unprotected { return d.unprotected }

// location returns the state of the word at addr, through a small cache
// in front of the map: most accesses are to words accessed just before.
func (d *Detector) location(addr uintptr) *location {
	e := &d.cache[(addr/word)%uintptr(len(d.cache))]
	if e.gen == d.gen && e.addr == addr {
		return &d.pool[e.li]
	}
	li, ok := d.locs[addr]
	if !ok {
		li = int32(len(d.pool))
		if len(d.pool) < cap(d.pool) {
			d.pool = d.pool[:li+1]
		} else {
			d.pool = append(d.pool, location{})
		}
		d.locs[addr] = li
	}
	*e = cacheEntry{addr: addr, li: li, gen: d.gen}
	return &d.pool[li]
}

// access checks the access cur (of the goroutine ts) to the word at addr
// and appends the race it completes, if any, to races.
func (d *Detector) access(ts *threadState, addr uintptr, cur *record, races []Race) []Race {
	loc := d.location(addr)
	t := cur.Thread
	if loc.state == Exclusive && loc.owner == t {
		// Only t accessed it so far: no race, no change of Eraser's
		// state; only t's records, which no check compares with t.
		if cur.Write && !cur.Atomic {
			loc.recs = loc.recs[:0]
		}
		loc.remember(cur)
		return races
	}
	d.lockset(loc, t, cur)

	switch d.mode {
	case HB:
		if prev := d.unordered(ts, cur, loc); prev != nil {
			if !loc.reported {
				races = append(races, Race{Addr: addr, Prev: prev.Access, Cur: cur.Access})
				loc.reported = true
			}
		} else if loc.state == SharedModified && len(loc.cset) == 0 && !loc.noted && !loc.reported {
			// The discipline is broken, but happens-before orders the
			// accesses. Name an access of another goroutine.
			loc.noted = true
			u := Unprotected{Addr: addr, Cur: cur.Access}
			if p := loc.latestOther(t); p != nil {
				u.Prev = p.Access
			}
			d.unprotected = append(d.unprotected, u)
		}
		if cur.Write && !cur.Atomic {
			// A plain write conflicts with every access of another
			// goroutine. Unless it raced (and the location is reported),
			// every access recorded so far happens before it, so a later
			// access unordered with one of them is unordered with this
			// write too: they can be forgotten (FastTrack's write rule).
			loc.recs = loc.recs[:0]
		}
	case Lockset:
		if loc.state == SharedModified && len(loc.cset) == 0 && !loc.reported {
			if prev := d.locksetPartner(cur, loc); prev != nil {
				races = append(races, Race{Addr: addr, Prev: prev.Access, Cur: cur.Access})
				loc.reported = true
			}
		}
	}
	loc.remember(cur)
	return races
}

// lockset advances Eraser's state machine of loc for the access cur of t.
func (d *Detector) lockset(loc *location, t int32, cur *record) {
	switch loc.state {
	case Virgin:
		loc.state, loc.owner = Exclusive, t
	case Exclusive:
		if t != loc.owner {
			loc.cset = append(loc.cset[:0], cur.prot...)
			loc.state = Shared
			if cur.Write {
				loc.state = SharedModified
			}
		}
	case Shared:
		loc.cset = refine(loc.cset, cur.prot)
		if cur.Write {
			loc.state = SharedModified
		}
	case SharedModified:
		loc.cset = refine(loc.cset, cur.prot)
	}
}

// unordered finds an earlier access of another goroutine that conflicts
// with cur (one of them a write, not both atomic) and does not happen
// before it: a race. The most recent such access is returned.
func (d *Detector) unordered(ts *threadState, cur *record, loc *location) *record {
	var best *record
	for i := range loc.recs {
		r := &loc.recs[i]
		if r.Thread == cur.Thread || !(r.Write || cur.Write) || (r.Atomic && cur.Atomic) {
			continue
		}
		if ts.vc.get(r.Thread) >= r.epoch {
			continue // r happens before cur
		}
		if best == nil || r.order > best.order {
			best = r
		}
	}
	return best
}

// locksetPartner names the access of another goroutine that pure Eraser
// pairs with cur when the lockset empties: one that conflicts with it and
// shares no protecting lock, else the latest access of another goroutine
// (the lockset emptied because of accesses no longer recorded).
func (d *Detector) locksetPartner(cur *record, loc *location) *record {
	var best *record
	for i := range loc.recs {
		r := &loc.recs[i]
		if r.Thread == cur.Thread || !(r.Write || cur.Write) || (r.Atomic && cur.Atomic) || overlaps(r.prot, cur.prot) {
			continue
		}
		if best == nil || r.order > best.order {
			best = r
		}
	}
	if best == nil {
		best = loc.latestOther(cur.Thread)
	}
	return best
}

// latestOther returns the latest recorded access of another goroutine than
// t, or nil.
func (loc *location) latestOther(t int32) *record {
	var best *record
	for i := range loc.recs {
		if r := &loc.recs[i]; r.Thread != t && (best == nil || r.order > best.order) {
			best = r
		}
	}
	return best
}

// remember keeps cur as its goroutine's last access of its kind.
func (loc *location) remember(cur *record) {
	loc.seq++
	cur.order = loc.seq
	for i := range loc.recs {
		if r := &loc.recs[i]; r.Thread == cur.Thread && r.Write == cur.Write && r.Atomic == cur.Atomic {
			*r = *cur
			return
		}
	}
	loc.recs = append(loc.recs, *cur)
}

// refine keeps, in place, the elements of the sorted set a that are in the
// sorted set b.
func refine(a, b []int32) []int32 {
	out := a[:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// overlaps reports whether two sorted sets share an element.
func overlaps(a, b []int32) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			return true
		}
	}
	return false
}
