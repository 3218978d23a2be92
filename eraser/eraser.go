// Package eraser detects data races on one execution of a program: the
// lockset algorithm of Savage et al. (Eraser, 1997), as the thesis runs it
// beside ExitBlock (sections 2.1.1 and 3.2), combined by default with
// happens-before in the style of O'Callahan and Choi (PPoPP 2003), because
// Go programs hand data over through channels rather than locks.
//
// A Detector follows one execution: the scheduler reports goroutine starts,
// lock acquisitions and releases, happens-before edges and memory accesses,
// and Access returns the races an access completes. State lives only as long
// as the execution: the explorer starts a fresh one (Reset) for every
// execution, so it always follows the explored path, whatever the way of
// backing up.
//
// Per location (an address; larger accesses are split into words):
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
// In Lockset mode an empty C(v) in shared-modified is reported. In Hybrid
// mode an empty C(v) (in shared or shared-modified) is reported only when
// the access also conflicts with an earlier access of another goroutine
// that shares no lock with it and is not ordered before it by
// happens-before (channels, WaitGroup, Once, Cond,
// atomics, goroutine start and exit; not locks, which the lockset covers).
// An access ordered after every earlier access of the location hands it
// over: it becomes exclusive to the accessing goroutine again, as data sent
// over a channel becomes the receiver's.
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
	// Hybrid reports an empty lockset only for accesses unordered by
	// happens-before (the default).
	Hybrid
	// Lockset is the pure Eraser algorithm.
	Lockset
)

var modeNames = [...]string{"off", "hybrid", "lockset"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses the values of xbtest's -race flag.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return Off, fmt.Errorf("unknown race detection %q (want hybrid, lockset or off)", s)
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
// send or receive side, a WaitGroup, a Once, an atomic variable.
type SyncKey struct {
	Addr uintptr
	Role uint8
}

// Detector follows one execution.
type Detector struct {
	mode    Mode
	threads []*threadState    // reused across executions
	locs    map[uintptr]int32 // index into pool
	pool    []location        // reused across executions
	syncs   map[SyncKey]clock
	sets    map[string][]int32 // interned lock sets, shared by records
	scratch []int32
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

// record is the last read or write of a location by one goroutine.
type record struct {
	Access
	epoch uint32  // the goroutine's own clock at the access
	prot  []int32 // the locks protecting it (write mode for a write), sorted
	order uint32  // recency among the location's records
}

type location struct {
	state    State
	owner    int32
	cset     []int32 // candidate lockset, sorted
	recs     []record
	seq      uint32
	reported bool
}

// New returns a detector for one execution.
func New(mode Mode) *Detector {
	return &Detector{mode: mode, locs: map[uintptr]int32{}, syncs: map[SyncKey]clock{}, sets: map[string][]int32{}}
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
	for i := range d.pool {
		l := &d.pool[i]
		*l = location{cset: l.cset[:0], recs: l.recs[:0]}
	}
	d.pool = d.pool[:0]
	clear(d.syncs)
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
	d.syncs[k] = d.syncs[k].join(ts.vc)
	ts.vc = ts.vc.tick(t)
}

// Observe acquires the clock of the object k into t.
func (d *Detector) Observe(t int32, k SyncKey) {
	if c, ok := d.syncs[k]; ok {
		ts := d.thread(t)
		ts.vc = ts.vc.join(c)
	}
}

// Acquire records that t took lock (in write mode for a Mutex or an
// RWMutex's Lock).
func (d *Detector) Acquire(t, lock int32, write bool) {
	ts := d.thread(t)
	ts.held = append(ts.held, hold{lock, write})
	ts.changed()
}

// Release records that t gave up one hold of lock.
func (d *Detector) Release(t, lock int32) {
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

// intern sorts the set b (scratch space) and returns the shared copy of
// it: lock sets change at every lock operation, and allocating each would
// dominate the cost of detection.
func (d *Detector) intern(b []int32) []int32 {
	d.scratch = b
	if len(b) == 0 {
		return nil
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
	var races []Race
	n := (size + word - 1) / word
	for i := uintptr(0); i < min(n, maxWords); i++ {
		if r, ok := d.access(t, addr+i*word, write, atomic, pos); ok {
			races = append(races, r)
		}
	}
	return races
}

func (d *Detector) access(t int32, addr uintptr, write, atomic bool, pos uint32) (Race, bool) {
	ts := d.thread(t)
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
	loc := &d.pool[li]
	cur := record{Access: Access{Thread: t, Write: write, Atomic: atomic, Pos: pos}, epoch: ts.vc.get(t)}
	cur.prot = d.protection(ts, write, atomic)
	if len(ts.held) > 0 {
		cur.Locks = d.heldIDs(ts)
	}

	if d.mode == Hybrid && loc.state != Virgin && loc.state != Exclusive && d.orderedAfterAll(ts, t, loc) {
		// Handed over: every earlier access happens before this one.
		loc.state, loc.owner, loc.cset, loc.recs = Exclusive, t, nil, loc.recs[:0]
	}
	switch loc.state {
	case Virgin:
		loc.state, loc.owner = Exclusive, t
	case Exclusive:
		if t != loc.owner {
			if d.mode == Hybrid && d.orderedAfterAll(ts, t, loc) {
				loc.owner, loc.recs = t, loc.recs[:0]
				break
			}
			loc.cset = append(loc.cset[:0], cur.prot...)
			loc.state = Shared
			if write {
				loc.state = SharedModified
			}
		}
	case Shared:
		loc.cset = refine(loc.cset, cur.prot)
		if write {
			loc.state = SharedModified
		}
	case SharedModified:
		loc.cset = refine(loc.cset, cur.prot)
	}

	var race Race
	found := false
	// Pure Eraser waits for shared-modified: data written by its first
	// goroutine and then only read is assumed initialised before being
	// shared. Happens-before tells whether it was, so the hybrid also
	// reports a read unordered with an earlier write.
	suspect := loc.state == SharedModified || (d.mode == Hybrid && loc.state == Shared)
	if suspect && len(loc.cset) == 0 && !loc.reported {
		if prev, ok := d.conflict(ts, &cur, loc); ok {
			race = Race{Addr: addr, Prev: prev.Access, Cur: cur.Access}
			loc.reported, found = true, true
		}
	}
	loc.remember(&cur)
	return race, found
}

// orderedAfterAll reports whether every recorded access of loc by another
// goroutine happens before t's current point.
func (d *Detector) orderedAfterAll(ts *threadState, t int32, loc *location) bool {
	for i := range loc.recs {
		r := &loc.recs[i]
		if r.Thread != t && ts.vc.get(r.Thread) < r.epoch {
			return false
		}
	}
	return true
}

// conflict finds the earlier access that forms a race with cur: one of
// another goroutine, with at least one of the two a write and not both
// atomic, sharing no protecting lock with cur, and (in Hybrid mode) not
// ordered before cur. The most recent such access is returned.
func (d *Detector) conflict(ts *threadState, cur *record, loc *location) (record, bool) {
	var best *record
	for i := range loc.recs {
		r := &loc.recs[i]
		if r.Thread == cur.Thread || !(r.Write || cur.Write) || (r.Atomic && cur.Atomic) {
			continue
		}
		if overlaps(r.prot, cur.prot) {
			continue
		}
		if d.mode == Hybrid && ts.vc.get(r.Thread) >= r.epoch {
			continue
		}
		if best == nil || r.order > best.order {
			best = r
		}
	}
	if best == nil && d.mode == Lockset {
		// The lockset emptied because of accesses no longer recorded
		// (only the last read and write of each goroutine are kept):
		// pair cur with the latest access of another goroutine.
		for i := range loc.recs {
			r := &loc.recs[i]
			if r.Thread != cur.Thread && (best == nil || r.order > best.order) {
				best = r
			}
		}
	}
	if best == nil {
		return record{}, false
	}
	return *best, true
}

// remember keeps cur as its goroutine's last read or last write.
func (loc *location) remember(cur *record) {
	loc.seq++
	cur.order = loc.seq
	for i := range loc.recs {
		if r := &loc.recs[i]; r.Thread == cur.Thread && r.Write == cur.Write {
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
