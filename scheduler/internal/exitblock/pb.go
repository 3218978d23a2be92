package exitblock

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// Iterative preemption bounding (Options.PreemptionBound; CHESS, Musuvathi
// and Qadeer, PLDI 2007) over the ExitBlock tree: the same branches, popped
// in another order. Every schedule with at most 0 preemptions first, then
// at most 1, then 2 ..., each level complete before the next; when the
// last level is done, every branch of the tree has been explored once, so
// the run has explored exactly the schedules depth-first order explores.
//
// A preemption is the start of a block by a goroutine u at a point where
// the goroutine p that ran the last goroutine block before it could still
// run (p is enabled, or delayed by ExitBlock-RW's pruning) and u != p.
// Not preemptions: a switch after p parked, exited, failed to take a lock
// or was frozen (p is not enabled); a switch after p's runtime.Gosched or
// after the fairness bound made it give way (a yield is a voluntary
// switch, as in CHESS); the blocks of pseudo-threads, a store buffer's
// flusher and the virtual clock (delaying a commit or a tick is not a
// context switch between goroutines; p stays the last goroutine across
// them). Against ExitBlock's branch kinds: the "others first" branch of a
// block that continued its thread's previous block is one preemption; a
// spawn branch (the parent stopped right after a go statement, others
// first) is one; a notify, select or tick branch (the same thread, another
// choice) adds none.
//
// Each branch carries the preemptions of its prefix and its level: that
// count, plus one when its first block is certainly a preemption (the
// thread it stops was the last goroutine, it did not yield, and every
// thread the branch may start is a goroutine). Every schedule below a
// branch has at least its level of preemptions (counts only grow along a
// path), so when the branches up to level k are done, every schedule with
// at most k preemptions has been explored: a run cut short at level k+1 is
// complete up to k preemptions. A schedule may have more preemptions than
// the level it was explored at (a switch the push could not be sure of);
// it is explored once, earlier.
//
// Branches over the current bound wait in per-level lists. Depth-first
// order backs up along the current path, which a waiting branch no longer
// shares; so it keeps a copy of the path it was pushed on (pathSnap, one
// per execution that deferred a branch).

// pbInfo is what the count needs of a path prefix: the preemptions in it,
// the last goroutine that ran a block (-1: none) and whether that block
// ended with a yield.
type pbInfo struct {
	pre     int
	last    int32
	yielded bool
}

// pbBranch is a branch's part of preemption bounding.
type pbBranch struct {
	info  pbInfo    // of the branch's prefix (extra included)
	level int       // info.pre, plus one if its first block is a preemption for sure
	snap  *pathSnap // the path it was pushed on, if it waited for a later level
}

// pathSnap is a copy of an execution's path, shared by the branches it
// deferred.
type pathSnap struct{ path []sched.Decision }

// pbState is the explorer's preemption bounding.
type pbState struct {
	bound    int        // the level being explored
	deferred [][]branch // by level: branches over the bound
	waiting  int        // branches in deferred
	// info[i] describes the current path's first i blocks; cur is whether
	// the block under way is a preemption.
	info []pbInfo
	cur  bool
	snap *pathSnap // this execution's, once it deferred a branch
	// dlow is len(deferred[l]) when this process was forked (fork
	// checkpoints): what it hands back is relative to it; bound0 is the
	// bound then.
	dlow   []int
	bound0 int
}

// goroutine reports whether t is a goroutine, not a flusher or the clock.
func (ex *Explorer) goroutine(t int32) bool {
	if ex.eng.IsClock(t) {
		return false
	}
	owner, _ := ex.eng.Flusher(t)
	return owner < 0
}

// runnable reports whether t could run in st: enabled, or delayed without
// having given way.
func runnable(st *ebState, t int32) bool {
	if st.enabled.Has(t) {
		return true
	}
	for _, d := range st.delayed {
		if d.t == t {
			return !d.yield
		}
	}
	return false
}

// pbBlockStarted counts the block thread t starts now (loop).
func (ex *Explorer) pbBlockStarted(t int32) {
	pb := ex.pb
	n := len(ex.path)
	for len(pb.info) <= n {
		pb.info = append(pb.info, pbInfo{last: -1})
	}
	in := pb.info[n]
	pb.cur = in.last >= 0 && t != in.last && !in.yielded && ex.goroutine(t) && runnable(&ex.st, in.last)
}

// pbBlockEnded records the block that endBlock appended to the path.
func (ex *Explorer) pbBlockEnded(t int32) {
	pb := ex.pb
	n := len(ex.path) // the block is path[n-1]
	in := pb.info[n-1]
	if pb.cur {
		in.pre++
	}
	if ex.goroutine(t) {
		in.last = t
	}
	in.yielded = false
	pb.info = append(pb.info[:n], in)
}

// pbYielded: the block that just ended did with a runtime.Gosched.
func (ex *Explorer) pbYielded() {
	if ex.pb != nil {
		ex.pb.info[len(ex.path)].yielded = true
	}
}

// pbPush files b by its level: on the stack if within the bound, else in
// the list of its level with a copy of the current path.
func (ex *Explorer) pbPush(b branch) {
	pb := ex.pb
	in := pb.info[b.depth]
	if b.extra != nil {
		// The parent's block up to its go statement is part of the
		// prefix.
		if ex.blk.open && pb.cur {
			in.pre++
		}
		if ex.goroutine(b.extra.Thread) {
			in.last = b.extra.Thread
		}
		in.yielded = false
	}
	cur := ex.blk.thread
	sure := false
	switch {
	case b.plan != nil && b.plan.thread >= 0:
		// The same thread with another choice (or, for the oracle, the
		// thread the plan names): its first block counts as it will.
		t := b.plan.thread
		sure = in.last >= 0 && t != in.last && !in.yielded && ex.goroutine(t) && runnable(&b.st, in.last)
	case b.plan != nil:
		// A tick's other order, before any block: no block yet.
	default:
		// Others first: cur is delayed, one of the enabled runs.
		sure = cur >= 0 && cur == in.last && !in.yielded && ex.goroutine(cur) && ex.allGoroutines(&b.st.enabled)
	}
	b.pb = pbBranch{info: in, level: in.pre}
	if sure {
		b.pb.level++
	}
	if b.pb.level <= pb.bound {
		ex.stack = append(ex.stack, b)
		return
	}
	if pb.snap == nil {
		pb.snap = &pathSnap{}
	}
	b.pb.snap = pb.snap
	for len(pb.deferred) <= b.pb.level {
		pb.deferred = append(pb.deferred, nil)
	}
	pb.deferred[b.pb.level] = append(pb.deferred[b.pb.level], b)
	pb.waiting++
}

func (ex *Explorer) allGoroutines(s *sched.TSet) bool {
	all := true
	s.Each(func(u int32) {
		if !ex.goroutine(u) {
			all = false
		}
	})
	return all
}

// pbExecutionEnded fills this execution's snapshot, if it deferred a
// branch: the path as it ended, which the branches' prefixes are of.
func (ex *Explorer) pbExecutionEnded() {
	pb := ex.pb
	if pb.snap == nil {
		return
	}
	pb.snap.path = clonePath(ex.path)
	pb.snap = nil
}

// clonePath copies p, sharing the choices with their capacity clipped:
// a path only ever appends to a decision's choices or replaces them, so a
// clipped slice is never written through, and an append to it reallocates.
func clonePath(p []sched.Decision) []sched.Decision {
	out := make([]sched.Decision, len(p))
	for i, d := range p {
		out[i] = d
		out[i].Choices = d.Choices[:len(d.Choices):len(d.Choices)]
	}
	return out
}

// pbNextLevel moves the branches of the lowest waiting level onto the
// (empty) stack and raises the bound to it; false if none is waiting.
func (ex *Explorer) pbNextLevel() bool {
	pb := ex.pb
	for l := pb.bound + 1; l < len(pb.deferred); l++ {
		if len(pb.deferred[l]) == 0 {
			continue
		}
		pb.bound = l
		ex.stack = append(ex.stack, pb.deferred[l]...)
		pb.waiting -= len(pb.deferred[l])
		pb.deferred[l] = nil
		return true
	}
	return false
}

// pbStart prepares the popped start: a branch that waited restores the
// path it was pushed on (ReplayPrefix and Begin take the prefix from it).
func (ex *Explorer) pbStart() {
	b := &ex.start
	if b.pb.snap != nil {
		ex.path = append(ex.path[:0], clonePath(b.pb.snap.path[:b.depth])...)
		b.pb.snap = nil
	}
}

// pbBegin sets the count of the execution's prefix from its start.
func (ex *Explorer) pbBegin() {
	pb := ex.pb
	n := len(ex.path)
	for len(pb.info) <= n {
		pb.info = append(pb.info, pbInfo{last: -1})
	}
	pb.info = pb.info[:n+1]
	pb.info[n] = ex.start.pb.info
	pb.snap = nil
}

// CompleteUpTo reports, under preemption bounding, up to how many
// preemptions the exploration so far is complete (-1: not even 0), and
// whether the explorer bounds preemptions at all.
func (ex *Explorer) CompleteUpTo() (int, bool) {
	if ex.pb == nil {
		return 0, false
	}
	if ex.done {
		return ex.pb.bound, true
	}
	return ex.pb.bound - 1, true
}

// pbForked notes the lists' lengths: a forked child hands back what it
// added to them.
func (ex *Explorer) pbForked() {
	pb := ex.pb
	pb.dlow = pb.dlow[:0]
	for _, l := range pb.deferred {
		pb.dlow = append(pb.dlow, len(l))
	}
	pb.bound0 = pb.bound
}

// encPBBranch and decPBBranch hand a branch's part over (handover.go).
func encPBBranch(e *sched.Enc, b *pbBranch) {
	e.Int(int64(b.info.pre))
	e.Int(int64(b.info.last))
	e.Bool(b.info.yielded)
	e.Int(int64(b.level))
	e.Bool(b.snap != nil)
	if b.snap != nil {
		e.Decisions(b.snap.path)
	}
}

func decPBBranch(d *sched.Dec) pbBranch {
	var b pbBranch
	b.info = pbInfo{pre: int(d.Int()), last: int32(d.Int()), yielded: d.Bool()}
	b.level = int(d.Int())
	if d.Bool() {
		b.snap = &pathSnap{path: d.Decisions()}
	}
	return b
}

// pbSave encodes the bound and what the lists gained since the fork (all
// of them if the bound moved: the lists were consumed); the current path's
// counts.
func (ex *Explorer) pbSave(e *sched.Enc, over bool) {
	pb := ex.pb
	e.Int(int64(pb.bound))
	all := pb.bound != pb.bound0 || over
	e.Bool(all)
	e.Uint(uint64(len(pb.deferred)))
	for l, list := range pb.deferred {
		keep := 0
		if !all && l < len(pb.dlow) {
			keep = min(pb.dlow[l], len(list))
		}
		if over {
			list = nil
		}
		e.Uint(uint64(keep))
		rest := list[keep:]
		e.Uint(uint64(len(rest)))
		for i := range rest {
			encBranch(e, &rest[i])
		}
	}
	e.Uint(uint64(len(pb.info)))
	for _, in := range pb.info {
		e.Int(int64(in.pre))
		e.Int(int64(in.last))
		e.Bool(in.yielded)
	}
}

// pbLoad decodes what pbSave wrote and returns what applies it.
func pbLoad(x *sched.Dec) func(to *Explorer) {
	bound := int(x.Int())
	all := x.Bool()
	type part struct {
		keep int
		add  []branch
	}
	var parts []part
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		p := part{keep: x.N()}
		for m := x.N(); m > 0 && x.Err == nil; m-- {
			p.add = append(p.add, decBranch(x))
		}
		parts = append(parts, p)
	}
	var info []pbInfo
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		info = append(info, pbInfo{pre: int(x.Int()), last: int32(x.Int()), yielded: x.Bool()})
	}
	return func(to *Explorer) {
		pb := to.pb
		pb.bound = bound
		var lists [][]branch
		waiting := 0
		for l, p := range parts {
			var list []branch
			if !all && l < len(pb.deferred) {
				list = pb.deferred[l][:min(p.keep, len(pb.deferred[l]))]
			}
			list = append(list, p.add...)
			waiting += len(list)
			lists = append(lists, list)
		}
		pb.deferred, pb.waiting, pb.info = lists, waiting, info
	}
}
