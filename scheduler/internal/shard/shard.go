// Package shard splits one exploration's schedule tree between n
// processes that share nothing, so that together they explore exactly
// what one process would: the sum of their schedules (and of their aborted
// attempts) is one process's, and every execution, with its findings, is
// counted by exactly one of them. It is a sched.Strategy that wraps a
// depth-first one (the exhaustive ExitBlock explorer) between the driver
// and it; it sees the tree through the strategy's stack (the depth of each
// branch, BranchDepth) and the depth of the path under way.
//
// The tree. A node is the program state after a path's first k decisions
// (blocks); a branch of depth k on the stack is another child of the node
// at depth k. ExitBlock pushes a node's branches when the block starting
// there ends (or at a choice point inside it), from the state of the path
// to it, and nothing below a node adds branches at or above it. The
// program is deterministic under the explorer (a replayed prefix leads to
// the same node), so the tree, and the order in which a depth-first search
// meets its nodes, are functions of the program and the settings: every
// process that explores the tree meets the same nodes in the same order.
//
// The split. A node is branching when it has a branch besides the child
// the path takes (this path pushed one at its depth, or the path started
// there from a branch). Every shard explores the top of the tree, down to
// the Cut-th branching node of each path. A path whose Cut-th branching
// node's block has ended has crossed: the subtree below that decision
// belongs to one shard, round robin in the order the crossings are met
// (the same in every shard). The owner goes on; the others end the
// execution there (it is not a schedule of theirs) having pushed every
// branch of the top that it had to push. Executions that start below a
// crossing (a branch pushed by the owner) are the owner's. A path that
// ends before it crosses is a schedule of the top, which every shard runs:
// it is counted by one shard, round robin again; and so is an attempt
// aborted in the top (a lock enter that failed: the strategy starts the
// same execution again from that block without popping a branch).
//
// Nothing else changes: the events of every execution reach the wrapped
// strategy as before, so the tree below a crossing is explored by its
// owner exactly as one process explores it.
//
// What must hold besides determinism: the tree must not change while it is
// explored. The engine restarts an exploration when it learns where blocks
// must end (a lock some TryLock tries, an RWMutex locked both ways, a
// racy word under tso/pso): what it learns in the top every shard learns
// there too, at the same execution; what a shard learns below a crossing
// of its own the others do not learn. The engine reports that
// (result.Result.ShardLearnt), and the command does not add such parts up
// as if they agreed.
//
// Teams (-parallel). A static split leaves a process idle when its parts
// are smaller than another's, and ExitBlock's trees are skewed (the
// subtrees where the last goroutine runs early are tiny), so the processes
// of one machine share a shard's part dynamically instead: they form a
// team (Options.Claim), and each crossing of the shard's, each schedule of
// the top and each attempt aborted there, is explored and counted by the
// first member to meet it, which claims it in a table the members share
// (package internal/claims: one compare-and-swap on a shared page per
// claim, no messages). Every member meets the same crossings in the same
// order, since each runs the whole top, so the k-th is the same node in
// every member and has exactly one owner: the parts add up as the static
// split's do, whoever took which. A member busy below a crossing claims
// nothing meanwhile; the others go on through the top and claim the
// crossings after it, so none is idle while a crossing is left, and the
// members end at most one subtree apart. A member that joins late (the
// command starts the others once a test is big, package xbtest's
// parallel.go) runs past what is claimed, each such crossing cut short at
// once, and claims from where the first member has got to: nothing is
// explored twice.
//
// Why claims of crossings rather than work stealing proper (a busy
// process donating a branch of its stack, the path to a node and the
// explorer's sets there, to an idle one, which would spare every member
// but the first the top). A branch is a sound unit: ExitBlock's subtree
// below it depends only on its path and its sets (enabled, delayed and
// blocked threads, the plan of a re-executed block), nothing of its
// siblings'. But the branch must leave the donor between two executions,
// through a channel to the command that the driver polls; under fork
// checkpoints the branches low on the stack, the ones worth giving, are
// held by the process's parents, which hand them down only by exiting;
// the counts of the top, schedules and aborted attempts, would have to
// move with the branches; and a process that learns where blocks must end
// restarts the whole tree, which every member must do at the same
// execution. Claims need none of that: a member's exploration is the
// depth-first one with some crossings cut, so fork hand-over, restarts
// (a table per restart: every member restarts at the same execution, in
// the top) and -shard (the team claims among the shard's crossings only)
// work as they do for shards. What they cost is the top, which every
// member runs: a few per cent of a big tree at the default Cut (package
// xbtest starts more members only on a test past a few thousand
// schedules).
package shard

import (
	"fmt"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// DefaultCut is the number of branching nodes of a path above the split
// when the options do not say. ExitBlock's nodes have two to a few
// children, so that deals out some 2^8 to 3^8 subtrees, enough for a round
// robin to even out their sizes over a few shards, while the top every
// shard runs (an execution per subtree, cut short after its first
// branching nodes) stays a small part of the work. Measured on
// BufferNotify (75,293 schedules, scheduler's BenchmarkShards, CPU time):
// at 8, two shards took 1.36 s together against 1.41 s for one process,
// the larger 0.72 s; at 10, 1.74 s together (the top costs four times as
// many executions) and the larger 0.96 s; at 4 and 6 the parts were
// less even.
const DefaultCut = 8

// Options say which part a Strategy explores.
type Options struct {
	Index, Count int // this shard, of Count (0 <= Index < Count)
	Cut          int // branching nodes of a path above the split (DefaultCut if 0)
	// Claim, if set, makes the process one member of a team that
	// explores shard Index together: of the shard's crossings, schedules
	// of the top and attempts aborted there, the process explores and
	// counts those it claims (Claim(slot) reports that the slot is this
	// member's, the first to claim it; asking again gives the same
	// answer). Slots number them in the order met, the same in every
	// member (slot).
	Claim func(slot int) bool
}

// The kinds of what the members of a team claim (Slot).
const (
	crossing = iota // a subtree below the split
	topPath         // a schedule of the top
	topAbort        // an attempt aborted in the top
	kinds
)

// slot is the claims slot of the k-th of a kind (in the order met, among
// those of the shard).
func slot(kind, k int) int { return kinds*k + kind }

// Stack is what a Strategy needs of the wrapped strategy's stack besides
// its size (Pending): the depth of the i-th branch, bottom first.
type Stack interface {
	BranchDepth(i int) int
}

// Strategy explores shard Index of Count of the tree of the strategy it
// wraps. Every event reaches that strategy unchanged; only the calls that
// return the thread to run next may end the execution, where its path
// crosses into a subtree of another shard.
type Strategy struct {
	sched.Strategy
	stack Stack
	opt   Options
	st    state
	// loads counts the hand-overs applied to this strategy (Load). A
	// call of the wrapped strategy may return in another process than
	// the one it began in: at a branch point a fork checkpoint's
	// snapshot forks a new child, which loads the state its last child
	// left and is redirected to the next start from inside the call
	// (sched.Engine.BranchPoint). What the call returns then belongs to
	// that start, whose own Begin has checked it, if the replay has
	// reached it; Begin's own check, made for the path it began on, must
	// not run.
	loads int
}

// state is what a Strategy keeps across executions; it travels whole with
// a fork checkpoint's hand-over.
type state struct {
	// above holds, for each branch on the wrapped strategy's stack
	// (bottom first), the number of branching nodes above its node: in
	// step with the stack up to seen.
	above []int32
	seen  int
	// The path under way: it started at depth start with above0
	// branching nodes above that node; marks are the depths from start
	// on known to be branching.
	start, above0 int
	marks         []int32
	// begun: the execution under way has replayed its prefix (Begin);
	// before that the wrapped strategy's path is the last execution's (a
	// child of a fork snapshot redirected to another start replays on
	// from inside a call of the execution it was forked in).
	begun bool
	// crossed: the path has crossed (or started below a crossing);
	// counts: this shard counts the execution (its schedule, findings).
	crossed, counts bool
	// Round robins: crossings, schedules of the top, attempts aborted in
	// the top, in the order met.
	crossings, topPaths, topAborts int
	skipped                        int // crossings left to the other shards
	claimed                        int // crossings this process explores
}

// Wrap returns s restricted to shard o.Index of o.Count. s must be a
// depth-first strategy whose stack Stack shows.
func Wrap(s sched.Strategy, stack Stack, o Options) *Strategy {
	if o.Cut <= 0 {
		o.Cut = DefaultCut
	}
	return &Strategy{Strategy: s, stack: stack, opt: o}
}

// Ended is called after each execution (aborted: it ended at a failed
// lock enter) and reports whether this shard counts it.
func (w *Strategy) Ended(aborted bool) bool {
	st := &w.st
	if st.crossed {
		return st.counts
	}
	if aborted {
		st.topAborts++
		return w.owns(topAbort, st.topAborts-1)
	}
	st.topPaths++
	return w.owns(topPath, st.topPaths-1)
}

// owns reports whether this process explores the k-th of a kind: round
// robin between the shards, then, in a team, claimed.
func (w *Strategy) owns(kind, k int) bool {
	n := w.opt.Count
	if k%n != w.opt.Index {
		return false
	}
	return w.opt.Claim == nil || w.opt.Claim(slot(kind, k/n))
}

// Cut reports whether the execution under way was ended where it crossed
// into another shard's subtree.
func (w *Strategy) Cut() bool { return w.st.crossed && !w.st.counts }

// Partitioned reports whether the execution under way has crossed into a
// subtree of this shard's alone.
func (w *Strategy) Partitioned() bool { return w.st.crossed }

// Skipped is the number of subtrees left to the other shards (and
// members); Claimed the number this process explores.
func (w *Strategy) Skipped() int { return w.st.skipped }
func (w *Strategy) Claimed() int { return w.st.claimed }

// branching is the number of branching nodes above depth k (k >= start)
// on the path under way.
func (w *Strategy) branching(k int) int {
	n := w.st.above0
	for _, m := range w.st.marks {
		if int(m) < k {
			n++
		}
	}
	return n
}

// scan notes the branches pushed since the last scan: each makes its node
// branching, and starts with the branching nodes above that node.
func (w *Strategy) scan() {
	st := &w.st
	for p := w.Strategy.Pending(); st.seen < p; st.seen++ {
		if st.crossed {
			// Pushed below the crossing: at least Cut branching nodes
			// above it, which is all that matters (and deep paths pay
			// nothing for counting them).
			st.above = append(st.above, int32(w.opt.Cut))
			continue
		}
		d := w.stack.BranchDepth(st.seen)
		st.above = append(st.above, int32(w.branching(d)))
		if !contains(st.marks, int32(d)) {
			st.marks = append(st.marks, int32(d))
		}
	}
}

func contains(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// next checks, as the block at the path's depth is about to start, whether
// the path crosses there; t is the thread the wrapped strategy chose, and
// next returns it, or -1 to end an execution that crossed into another
// shard's subtree.
func (w *Strategy) next(t int32) int32 {
	st := &w.st
	if !st.begun || st.crossed || t < 0 {
		return t
	}
	w.scan()
	if w.branching(w.Strategy.Depth()) < w.opt.Cut {
		return t
	}
	st.crossed = true
	st.crossings++
	st.counts = w.owns(crossing, st.crossings-1)
	if !st.counts {
		st.skipped++
		return -1
	}
	st.claimed++
	return t
}

// Next moves to the next start, as the wrapped strategy does, and takes
// the branching nodes above it from the branch popped.
func (w *Strategy) Next(aborted bool) bool {
	st := &w.st
	w.scan()
	n := len(st.above)
	st.begun = false
	if !w.Strategy.Next(aborted) {
		return false
	}
	if w.Strategy.Pending() >= n {
		// Nothing popped: the aborted execution goes on from its
		// RetPt, the same path.
		return true
	}
	st.above0 = int(st.above[n-1])
	st.above, st.seen = st.above[:n-1], n-1
	st.start = w.Strategy.StartDepth()
	st.marks = append(st.marks[:0], int32(st.start))
	st.crossed = st.above0 >= w.opt.Cut
	st.counts = st.crossed // below a crossing: only the owner pushed it
	return true
}

// The calls that return the thread that runs next: each checks whether
// the path crosses where the block starts. A call may return redirected
// to another start (loads changed): then a Begin that returns still
// replaying toward it must leave begun unset (a crossing counted on the
// prefix would be one no other shard counts, and would mark the new path
// crossed before it starts). The other calls need no such care: with
// begun unset next does nothing, and once the new start's Begin has
// checked, checking again at the same depth gives the same answer.

func (w *Strategy) Begin(e sched.Engine) int32 {
	loads := w.loads
	t := w.Strategy.Begin(e)
	if w.loads != loads {
		return t
	}
	w.st.begun = true
	return w.next(t)
}
func (w *Strategy) Boundary() int32             { return w.next(w.Strategy.Boundary()) }
func (w *Strategy) Yielded() int32              { return w.next(w.Strategy.Yielded()) }
func (w *Strategy) Park() int32                 { return w.next(w.Strategy.Park()) }
func (w *Strategy) Exit() int32                 { return w.next(w.Strategy.Exit()) }
func (w *Strategy) Freeze() int32               { return w.next(w.Strategy.Freeze()) }
func (w *Strategy) Preempt(lockExit bool) int32 { return w.next(w.Strategy.Preempt(lockExit)) }

// Save encodes the wrapped strategy's hand-over, then this shard's state
// (whole: it is small).
func (w *Strategy) Save(e *sched.Enc, over bool) {
	w.scan()
	w.Strategy.Save(e, over)
	st := &w.st
	e.Int32s(st.above)
	e.Int32s(st.marks)
	for _, v := range []int{st.seen, st.start, st.above0, st.crossings, st.topPaths, st.topAborts, st.skipped, st.claimed} {
		e.Int(int64(v))
	}
	e.Bool(st.begun)
	e.Bool(st.crossed)
	e.Bool(st.counts)
}

// Load decodes a child's Save; what it returns applies it to this
// strategy, or to a new one when the child started over.
func (w *Strategy) Load(x *sched.Dec) (func(fresh bool) sched.Strategy, error) {
	apply, err := w.Strategy.Load(x)
	if err != nil {
		return nil, err
	}
	var st state
	st.above, st.marks = x.Int32s(), x.Int32s()
	for _, v := range []*int{&st.seen, &st.start, &st.above0, &st.crossings, &st.topPaths, &st.topAborts, &st.skipped, &st.claimed} {
		*v = int(x.Int())
	}
	st.begun, st.crossed, st.counts = x.Bool(), x.Bool(), x.Bool()
	if x.Err != nil {
		return nil, fmt.Errorf("shard state: %v", x.Err)
	}
	return func(fresh bool) sched.Strategy {
		inner := apply(fresh)
		stack, _ := inner.(Stack)
		if fresh {
			return &Strategy{Strategy: inner, stack: stack, opt: w.opt, st: st}
		}
		w.Strategy, w.stack, w.st = inner, stack, st
		w.loads++
		return w
	}, nil
}
