package engine

import (
	"fmt"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// Store buffers only where races are, eager flushes first (issue 23,
// item 6). The store buffers themselves (tso.go) are unchanged: every plain
// store of a goroutine goes into its buffer and is committed by a flush
// block of its flusher, or by a drain; the events and the scheduling
// points of an execution are the same whatever is known. What changes is
// what the explorer does with them:
//
//   - it runs an enabled flusher before any other thread (eager flushes
//     first: the first schedule is the SC-like one, the delays are the
//     branches; internal/exitblock/flushorder.go);
//   - a forced flush runs so, with no branch in which another block runs
//     first (sched.Engine.Flusher);
//   - a passed point (ptPass) ends no block: the point before an access to
//     a location no race is known on, the point before a synchronization
//     operation that follows only such accesses, and the fence whose
//     buffered stores are all to such locations (accessPoint, opPointKind,
//     fencePoint).
//
// A schedule file keeps every flush block and counts passed points as
// points, so it replays without knowing what the exploration knew.
//
// Passes. Exploration under tso or pso runs in passes, each a complete
// ExitBlock exploration of M_R: the machine explored with every flush of a
// store outside R forced and every point of an access outside R passed,
// where R is a set of racy words (the words on which package eraser has
// reported a data race, named across executions as location.go names heap
// objects and package-level variables).
//
//   - Pass 0 explores M_R for R empty: every flush forced, every access
//     point passed. That is the program at synchronization granularity,
//     as -memory sc explores it by default, with stores committed by the
//     next synchronization operation: what sc finds, tso and pso find at
//     the same schedule. It learns racy words, and does not start over for
//     them. If it learnt none, it was the whole exploration (by (c)).
//   - Pass 1 explores M_R for the words pass 0 learnt; a pass that learns a
//     word not in R starts over with it (learnRacy, the driver's
//     nextFlushPass); the pass that learns nothing ends the exploration.
//   - Without happens-before race detection (-race off|lockset) nothing is
//     learnt: pass 1 forces and passes nothing (every word counts as racy),
//     which is the exploration tso.go describes.
//
// Findings are kept across passes with the schedule they were first found
// at: every pass explores executions of the unchanged machine (a forced
// flush is a flush the machine may take there; a passed point, one where
// the goroutine may go on), so each finding is real, and a later pass
// explores a superset of the earlier one's executions. The result's notes
// say what the passes did. Exhaustive enumeration (-algo brute, the
// oracle) runs no passes: it stays the unreduced reference.
//
// Why M_R loses nothing once a pass learns nothing (the DRF-SC argument of
// Adve and Hill, "Weak ordering: a new definition", ISCA 1990, and of the
// Go memory model, for this machine):
//
//	(a) Every synchronization operation that gives a happens-before edge
//	    out of a goroutine (a release: unlock, send, close, atomic write,
//	    go statement, Done, ...) drains that goroutine's buffers first
//	    (tso.go; the engine fences at each such event, run.event). So if
//	    store s of goroutine A is still buffered, no access of another
//	    goroutine made meanwhile is ordered after s by happens-before, nor
//	    before it (a chain into A's store would have to end in an acquire
//	    by A before s, hence begin with a release before that acquire,
//	    before the access). Any access of another goroutine to s's bytes
//	    made while s is buffered, and any commit of another goroutine's
//	    store to them, is a data race with s on that execution. Likewise
//	    an access of A that is not a synchronization operation is
//	    unordered with every access of another goroutine made since A's
//	    last synchronization operation.
//	(b) Take any execution E of the machine and its first event e that
//	    completes a race on a word outside R (if any). Before e, for every
//	    store s outside R, no other goroutine touches s's bytes while s is
//	    buffered, by (a). So s's flush can be moved back to the first point
//	    where s heads its FIFO (its issue, under PSO or into an empty TSO
//	    buffer; the commit of the store before it otherwise): the events
//	    it moves past are other goroutines' (which do not touch its bytes),
//	    the owner's own stores (which only append to its buffers) and the
//	    owner's loads of those bytes (forwarded s, or a newer own store,
//	    before; memory, holding s, after). Every load reads the same value.
//	    In the same way an access outside R moves back to its goroutine's
//	    previous block boundary: no other goroutine touched its bytes since
//	    (a). The moved execution E' has the same events, the same values
//	    and the same happens-before, each flush outside R as early as it
//	    can be and each access outside R adjacent to the boundary before
//	    it: between a store and its goroutine's next boundary that
//	    goroutine only stores, computes and makes accesses outside R, so
//	    the flush the explorer forces at that boundary, or the drain at a
//	    passed fence, commits the same. So E' up to e is an execution of
//	    M_R, and it has the race of e.
//	(c) ExitBlock explores M_R completely up to equivalent orders, which
//	    keep happens-before, and eraser's detector is exact for the first
//	    race on a word (FastTrack), so an exploration of M_R that learns
//	    nothing new shows that no execution of the machine races outside
//	    R (the first such race would be found in M_R by (b)). Then (b)
//	    applies to every execution with no e at all: every execution of
//	    the machine is equivalent, outcome for outcome, to one of M_R.
//
// What (a) needs of the machine: no release without a drain. A setting
// that adds one (a CAS that is not a full barrier, a release fence that
// orders stores without draining) must turn the reduction off
// (reduceByRaces) or drain there. What (c) needs of the detector: every
// race it returns reaches learnRacy, expected ones included; accesses of
// one location have one shape (eraser keys words by their address; two
// accesses that overlap at different addresses are not seen to race,
// through unsafe only); and accesses it does not see (code xbtest does not
// rewrite, which also bypasses the store buffers) are outside the argument,
// as they are outside race detection. The explorer's own argument for
// unprotected locations assumes the same (race.go, noteUnprotected).

// flushPasses is what an exploration learnt about its store buffers: the
// pass under way and the racy words found so far. It is part of learnt, so
// it survives the explorer's restarts and travels with fork hand-overs.
type flushPasses struct {
	pass    int
	racy    map[flushRegion][]uintptr // offsets of racy words in each region
	words   int                       // racy words in racy
	unknown bool                      // a race on memory with no name across executions
	grew    bool                      // learnt a racy word in this pass (pass > 0): start over
	pass0   int                       // schedules of pass 0
}

// flushRegion names a region of memory across executions: a heap object
// by its creation key, a package-level variable by its address.
type flushRegion struct {
	kind sched.RegionKind
	key  sched.HeapKey
	base uintptr
}

// reduceByRaces reports whether passes after the first force the flushes
// of locations no execution races on: the race detector must report
// happens-before races (see (c) above).
func (r *run) reduceByRaces() bool { return r.race.det.Mode() == eraser.HB }

// flushPassesOn reports whether this exploration runs passes (it explores
// store buffers, and is not an exhaustive enumeration, which stays the
// unreduced reference, nor a guided execution, which follows its schedule).
//
// Not under a sampling strategy (-strategy pct, random): pass 0 has no
// end there but the samples bound, and its forced flushes would keep every
// sample SC-like; every flush is a choice of the sampler instead.
//
// Not under -cas relaxed: a relaxed CAS orders two goroutines (Go's
// happens-before, which the race detector follows) without draining the
// first one's buffers, so a store no race touches may still be seen late
// (corpus/fences TestMPRelaxedCAS), and pass 0's forced flushes would hide
// it: every flush stays a choice.
func (r *run) flushPassesOn() bool {
	return r.mem != settings.SC && !r.cfg.Oracle && r.guide == nil && r.known != nil && r.cfg.CAS != settings.RelaxedCAS &&
		!r.cfg.Strategy.Samples()
}

// Flusher implements sched.Engine.
func (r *run) Flusher(i int32) (owner int32, forced bool) {
	t := r.threadAt(i)
	if t == nil || t.flushOf == nil {
		return -1, false
	}
	b := t.flushOf
	if !r.flushPassesOn() || b.len() == 0 {
		return b.owner.idx, false
	}
	fp := &r.known.flush
	if fp.pass == 0 {
		return b.owner.idx, true
	}
	if !r.reduceByRaces() {
		return b.owner.idx, false
	}
	addr, size := b.q[b.head].at()
	return b.owner.idx, !fp.overlaps(r, addr, size)
}

// overlaps reports whether [addr, addr+size) shares a byte with a racy
// word.
func (fp *flushPasses) overlaps(r *run, addr, size uintptr) bool {
	reg, off, ok := r.flushRegionOf(addr)
	if !ok {
		return fp.unknown
	}
	for _, w := range fp.racy[reg] {
		if w < off+size && off < w+raceWord {
			return true
		}
	}
	return false
}

// raceWord is the extent of a location of the race detector: it checks an
// access word by word from its address (eraser.Access).
const raceWord = 8

// flushRegionOf names the region addr lies in and addr's offset in it.
func (r *run) flushRegionOf(addr uintptr) (flushRegion, uintptr, bool) {
	switch kind, reg := r.heap.classify(addr); kind {
	case sched.RegionHeap:
		return flushRegion{kind: kind, key: reg.key}, addr - reg.base, true
	case sched.RegionGlobal:
		return flushRegion{kind: kind, base: reg.base}, addr - reg.base, true
	}
	return flushRegion{}, 0, false
}

// learnRacy records that the detector reported a race on the word at
// addr. A word not known before starts the pass under way over (from
// pass 1 on; pass 0 forces every flush whatever it learns).
func (r *run) learnRacy(addr uintptr) {
	if !r.flushPassesOn() || !r.reduceByRaces() {
		return
	}
	fp := &r.known.flush
	reg, off, ok := r.flushRegionOf(addr)
	if !ok {
		if fp.unknown {
			return
		}
		fp.unknown = true
	} else {
		for _, w := range fp.racy[reg] {
			if w == off {
				return
			}
		}
		if fp.racy == nil {
			fp.racy = map[flushRegion][]uintptr{}
		}
		fp.racy[reg] = append(fp.racy[reg], off)
		fp.words++
	}
	if fp.pass > 0 {
		fp.grew = true
	}
}

// NextFlushPass is called when a pass has explored its last schedule
// (learnt false) or learnt a racy location: it reports whether another pass
// starts (and starts it; the driver then starts the exploration over with
// a new strategy, keeping the findings). schedules is how many the
// exploration has explored so far.
func (l *Learnt) NextFlushPass(cfg *Config, learnt bool, schedules int) bool {
	fp := &l.flush
	if cfg.Memory == settings.SC || cfg.Oracle || cfg.Strategy.Samples() {
		return false // a sampling strategy runs no passes (flushPassesOn)
	}
	if !learnt {
		if fp.pass > 0 || cfg.Race == eraser.HB && fp.words == 0 && !fp.unknown {
			// Complete: nothing was learnt in this pass (or pass 0
			// found no race, so it was M_R already).
			return false
		}
	}
	if fp.pass == 0 {
		fp.pass0 = schedules
	}
	fp.pass++
	fp.grew = false
	return true
}

// FlushPassGrew reports whether the pass under way learnt a racy word: the
// exploration starts over in the next pass.
func (l *Learnt) FlushPassGrew() bool { return l.flush.grew }

// FlushPassesNote says for the result what the passes did (empty: nothing
// to say); complete is whether the exploration ended without a bound.
func (l *Learnt) FlushPassesNote(cfg *Config, complete bool, schedules int) string {
	fp := &l.flush
	if cfg.Memory == settings.SC || cfg.Oracle {
		return ""
	}
	if !complete {
		return fmt.Sprintf("%s: stopped in pass %d of the store buffers, %d racy words known (pass 0 explores every flush as early as possible, SC-like; later passes the orders of the flushes of racy locations; scheduler/tsoorder.go)", cfg.Memory, fp.pass, fp.words)
	}
	if fp.pass == 0 {
		return fmt.Sprintf("%s: store buffers explored in %d schedules with every flush as early as possible: no execution races, so no other order of a flush is observable (scheduler/tsoorder.go)", cfg.Memory, schedules)
	}
	which := fmt.Sprintf("the flushes of the %d words found racy", fp.words)
	if fp.unknown {
		which += " and of memory xbtest cannot name"
	}
	if cfg.Race != eraser.HB {
		which = "every flush (-race is not hb, so races are not learnt)"
	}
	return fmt.Sprintf("%s: %d schedules with every flush as early as possible (SC-like) first, then %d in %d pass(es) exploring the orders of %s (scheduler/tsoorder.go)", cfg.Memory, fp.pass0, schedules-fp.pass0, fp.pass, which)
}

// save and load hand the passes over between forked processes
// (the driver's handover.go).
func (fp *flushPasses) save(e *sched.Enc) {
	e.Int(int64(fp.pass))
	e.Int(int64(fp.pass0))
	e.Bool(fp.grew)
	e.Bool(fp.unknown)
	e.Uint(uint64(len(fp.racy)))
	for reg, offs := range fp.racy {
		e.Uint(uint64(reg.kind))
		e.Int(int64(reg.key.Thread))
		e.Int(int64(reg.key.Seq))
		e.Uint(uint64(reg.base))
		e.Uint(uint64(len(offs)))
		for _, o := range offs {
			e.Uint(uint64(o))
		}
	}
}

func (fp *flushPasses) load(x *sched.Dec) {
	fp.pass, fp.pass0 = int(x.Int()), int(x.Int())
	fp.grew, fp.unknown = x.Bool(), x.Bool()
	fp.racy, fp.words = nil, 0
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		reg := flushRegion{kind: sched.RegionKind(x.Uint()), key: sched.HeapKey{Thread: int32(x.Int()), Seq: int32(x.Int())}, base: uintptr(x.Uint())}
		if fp.racy == nil {
			fp.racy = map[flushRegion][]uintptr{}
		}
		for m := x.N(); m > 0 && x.Err == nil; m-- {
			fp.racy[reg] = append(fp.racy[reg], uintptr(x.Uint()))
			fp.words++
		}
	}
}

// Scheduling points of accesses. Under tso and pso every shared access is
// a block boundary (access granularity), and so is the fence before a
// synchronization operation of a goroutine with buffered stores. Within a
// pass, an access to a location not known to race, and a fence whose
// buffered stores are all to such locations, is a point the explorer
// passes (ptPass) instead: by (b) above, no other goroutine touches that
// location between the goroutine's previous boundary and the access (or
// while the stores are buffered), so the access (the drain) moves to that
// boundary and running others at it reaches nothing new; the point remains
// a scheduling point of schedules (guided executions count it, whatever
// they know), so schedule files do not depend on what a pass knew. In
// pass 0 every such point is passed: pass 0 is the program at
// synchronization granularity, as -memory sc explores it by default.
//
// A goroutine that passes quietLimit access points in a row ends its block
// at the next one (a boundary more is a chance more for the others, never
// fewer behaviours): a loop that polls a plain variable no race is known on
// yet would otherwise never let the goroutine it waits for run.
const quietLimit = 1000

// accessPoint is the kind of scheduling point at t's access to
// [addr, addr+size) under access granularity.
func (r *run) accessPoint(t *thread, addr, size uintptr) pointKind {
	if r.mem == settings.SC || !r.flushPassesOn() {
		return ptBoundary
	}
	fp := &r.known.flush
	if fp.pass > 0 && (!r.reduceByRaces() || fp.overlaps(r, addr, size)) {
		return ptBoundary
	}
	if t.quiet++; t.quiet > quietLimit {
		return ptBoundary
	}
	return ptPass
}

// fencePoint is the kind of scheduling point of t's fence before a
// synchronization operation (t has buffered stores).
func (r *run) fencePoint(t *thread) pointKind {
	if !r.flushPassesOn() {
		return ptBoundary
	}
	fp := &r.known.flush
	if fp.pass > 0 {
		if !r.reduceByRaces() {
			return ptBoundary
		}
		for _, b := range t.bufs {
			for j := b.head; j < len(b.q); j++ {
				if a, s := b.q[j].at(); fp.overlaps(r, a, s) {
					return ptBoundary
				}
			}
		}
	}
	return ptPass
}

// accessStarts is the scheduling point at the start of a shared access at
// access granularity. After an access, the next synchronization operation
// starts with a point (brute.go, "Access granularity"), so that another
// goroutine's store can come between them; after accesses whose points
// were all passed that point is passed too (no other goroutine's store to
// a race-free location can come between, by (b)). Which points are passed
// changes neither the events nor the points of an execution, only whether
// the explorer ends a block there, so schedules replay whatever a pass
// knew.
func (r *run) accessStarts(t *thread, addr, size uintptr) {
	kind := r.accessPoint(t, addr, size)
	racy := t.racyAccess
	r.transfer(t, r.point(t, kind))
	r.accessed = true
	t.racyAccess = racy || kind != ptPass
}

// opPointKind is the kind of the point before a synchronization operation
// that follows an access (brute.go).
func (r *run) opPointKind(t *thread) pointKind {
	if r.mem == settings.SC || !r.flushPassesOn() || t.racyAccess {
		return ptBoundary
	}
	return ptPass
}
