package storebuf

import (
	"fmt"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/settings"
)

// Passes is what an exploration learnt about its store buffers: the pass
// under way and the racy words found so far (see the package doc, "Flush
// orders: passes"). It is part of the engine's Learnt, so it survives the
// explorer's restarts and travels with fork hand-overs.
type Passes struct {
	pass    int
	racy    map[region][]uintptr // offsets of racy words in each region
	words   int                  // racy words in racy
	unknown bool                 // a race on memory with no name across executions
	grew    bool                 // learnt a racy word in this pass (pass > 0): start over
	pass0   int                  // schedules of pass 0
}

// region names a region of memory across executions: a heap object by its
// creation key, a package-level variable by its address.
type region struct {
	kind sched.RegionKind
	key  sched.HeapKey
	base uintptr
}

// PassesOn reports whether an exploration under s runs passes: it explores
// store buffers, and is not an exhaustive enumeration (oracle), which
// stays the unreduced reference, nor a guided execution, which follows its
// schedule (the engine passes no Passes to Reset for those).
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
func PassesOn(s *settings.Settings, oracle bool) bool {
	return s.Memory != settings.SC && !oracle && s.CAS != settings.RelaxedCAS && !s.Strategy.Samples()
}

// Forced reports whether the flush b's flusher would run next is forced
// (sched.Engine.Flusher): it runs before any other thread, with no branch
// in which another block runs first.
func (c *Buffers) Forced(b *Buf) bool {
	fp := c.passes
	if fp == nil || b.Len() == 0 {
		return false
	}
	if fp.pass == 0 {
		return true
	}
	if !c.reduce {
		return false
	}
	addr, size := b.q[b.head].At()
	return !c.racy(addr, size)
}

// racy reports whether [addr, addr+size) shares a byte with a racy word.
func (c *Buffers) racy(addr, size uintptr) bool {
	fp := c.passes
	reg, off, ok := c.regionOf(addr)
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

// regionOf names the region addr lies in and addr's offset in it.
func (c *Buffers) regionOf(addr uintptr) (region, uintptr, bool) {
	switch kind, key, base := c.host.Region(addr); kind {
	case sched.RegionHeap:
		return region{kind: kind, key: key}, addr - base, true
	case sched.RegionGlobal:
		return region{kind: kind, base: base}, addr - base, true
	}
	return region{}, 0, false
}

// LearnRacy records that the detector reported a race on the word at
// addr. A word not known before starts the pass under way over (from
// pass 1 on; pass 0 forces every flush whatever it learns).
func (c *Buffers) LearnRacy(addr uintptr) {
	fp := c.passes
	if fp == nil || !c.reduce {
		return
	}
	reg, off, ok := c.regionOf(addr)
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
			fp.racy = map[region][]uintptr{}
		}
		fp.racy[reg] = append(fp.racy[reg], off)
		fp.words++
	}
	if fp.pass > 0 {
		fp.grew = true
	}
}

// Next is called when a pass has explored its last schedule (learnt
// false) or learnt a racy location: it reports whether another pass
// starts (and starts it; the driver then starts the exploration over with
// a new strategy, keeping the findings). schedules is how many the
// exploration has explored so far.
func (fp *Passes) Next(s *settings.Settings, oracle, learnt bool, schedules int) bool {
	if s.Memory == settings.SC || oracle || s.Strategy.Samples() {
		return false // a sampling strategy runs no passes (PassesOn)
	}
	if !learnt {
		if fp.pass > 0 || s.Race == eraser.HB && fp.words == 0 && !fp.unknown {
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

// Grew reports whether the pass under way learnt a racy word: the
// exploration starts over in the next pass.
func (fp *Passes) Grew() bool { return fp.grew }

// Words is the number of racy words known; Unknown whether a race on
// memory xbtest cannot name is.
func (fp *Passes) Words() int    { return fp.words }
func (fp *Passes) Unknown() bool { return fp.unknown }

// Note says for the result what the passes did (empty: nothing to say);
// complete is whether the exploration ended without a bound.
func (fp *Passes) Note(s *settings.Settings, oracle, complete bool, schedules int) string {
	if s.Memory == settings.SC || oracle {
		return ""
	}
	if !complete {
		return fmt.Sprintf("%s: stopped in pass %d of the store buffers, %d racy words known (pass 0 explores every flush as early as possible, SC-like; later passes the orders of the flushes of racy locations; scheduler/tsoorder.go)", s.Memory, fp.pass, fp.words)
	}
	if fp.pass == 0 {
		return fmt.Sprintf("%s: store buffers explored in %d schedules with every flush as early as possible: no execution races, so no other order of a flush is observable (scheduler/internal/storebuf)", s.Memory, schedules)
	}
	which := fmt.Sprintf("the flushes of the %d words found racy", fp.words)
	if fp.unknown {
		which += " and of memory xbtest cannot name"
	}
	if s.Race != eraser.HB {
		which = "every flush (-race is not hb, so races are not learnt)"
	}
	return fmt.Sprintf("%s: %d schedules with every flush as early as possible (SC-like) first, then %d in %d pass(es) exploring the orders of %s (scheduler/internal/storebuf)", s.Memory, fp.pass0, schedules-fp.pass0, fp.pass, which)
}

// Save and Load hand the passes over between forked processes (the
// driver's handover.go).
func (fp *Passes) Save(e *sched.Enc) {
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

func (fp *Passes) Load(x *sched.Dec) {
	fp.pass, fp.pass0 = int(x.Int()), int(x.Int())
	fp.grew, fp.unknown = x.Bool(), x.Bool()
	fp.racy, fp.words = nil, 0
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		reg := region{kind: sched.RegionKind(x.Uint()), key: sched.HeapKey{Thread: int32(x.Int()), Seq: int32(x.Int())}, base: uintptr(x.Uint())}
		if fp.racy == nil {
			fp.racy = map[region][]uintptr{}
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

// AccessStarts is the scheduling point at the start of g's shared access
// to [addr, addr+size) at access granularity. After an access, the next
// synchronization operation starts with a point (the engine's brute.go,
// "Access granularity"), so that another goroutine's store can come
// between them; after accesses whose points were all passed that point is
// passed too (no other goroutine's store to a race-free location can come
// between, by (b)). Which points are passed changes neither the events nor
// the points of an execution, only whether the explorer ends a block
// there, so schedules replay whatever a pass knew.
func (c *Buffers) AccessStarts(g *Goroutine, addr, size uintptr) {
	pass := c.accessPass(g, addr, size)
	racy := g.racyAccess
	c.host.Point(g.Idx, pass, true)
	g.racyAccess = racy || !pass
}

// accessPass reports whether the explorer passes g's access point.
func (c *Buffers) accessPass(g *Goroutine, addr, size uintptr) bool {
	fp := c.passes
	if fp == nil {
		return false
	}
	if fp.pass > 0 && (!c.reduce || c.racy(addr, size)) {
		return false
	}
	if g.quiet++; g.quiet > quietLimit {
		return false
	}
	return true
}

// fencePass reports whether the explorer passes the point of g's fence
// before a synchronization operation (g has buffered stores).
func (c *Buffers) fencePass(g *Goroutine) bool {
	fp := c.passes
	if fp == nil {
		return false
	}
	if fp.pass > 0 {
		if !c.reduce {
			return false
		}
		for _, b := range g.bufs {
			for j := b.head; j < len(b.q); j++ {
				if a, s := b.q[j].At(); c.racy(a, s) {
					return false
				}
			}
		}
	}
	return true
}

// OpPass reports whether the explorer passes the point before g's
// synchronization operation that follows an access (the engine's
// brute.go).
func (c *Buffers) OpPass(g *Goroutine) bool { return c.passes != nil && !g.racyAccess }
