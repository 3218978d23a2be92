package exitblock

import (
	"fmt"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// The explorer's part of the hand-over between processes (fork
// checkpoints; the driver's part is package driver's handover.go): the
// branches it pushed, the path, the next start. The encoding is
// sched.Enc's, private to one test binary.

// encState encodes the sets of a branch.
func encState(e *sched.Enc, s *ebState) {
	e.TSet(&s.enabled)
	e.Uint(uint64(len(s.delayed)))
	for _, dt := range s.delayed {
		e.Int(int64(dt.t))
		e.Bool(dt.yield)
		e.CanonRW(dt.rw)
	}
	e.Uint(uint64(len(s.blocked)))
	for _, b := range s.blocked {
		e.Int(int64(b.Thread))
		e.Int(int64(b.Lock))
		e.Uint(uint64(b.PC))
	}
}

func decState(d *sched.Dec) ebState {
	var s ebState
	s.enabled = d.TSet()
	for n := d.N(); n > 0 && d.Err == nil; n-- {
		dt := delayedThread{t: int32(d.Int()), yield: d.Bool()}
		dt.rw = d.CanonRW()
		s.delayed = append(s.delayed, dt)
	}
	for n := d.N(); n > 0 && d.Err == nil; n-- {
		s.blocked = append(s.blocked, sched.Blocked{Thread: int32(d.Int()), Lock: int32(d.Int()), PC: uintptr(d.Uint())})
	}
	return s
}

// encBranch encodes a stack entry.
func encBranch(e *sched.Enc, b *branch) {
	e.Int(int64(b.depth))
	e.Bool(b.extra != nil)
	if b.extra != nil {
		e.Decision(b.extra)
	}
	encState(e, &b.st)
	e.Bool(b.plan != nil)
	if b.plan != nil {
		e.Int(int64(b.plan.thread))
		e.Int32s(b.plan.fixed)
		e.Int32s(b.plan.exclude)
		e.Bool(b.plan.tick)
	}
	encPBBranch(e, &b.pb)
}

func decBranch(d *sched.Dec) branch {
	b := branch{depth: int(d.Int())}
	if d.Bool() {
		x := d.Decision()
		b.extra = &x
	}
	b.st = decState(d)
	if d.Bool() {
		b.plan = &blockPlan{thread: int32(d.Int()), fixed: d.Int32s(), exclude: d.Int32s(), tick: d.Bool()}
	}
	b.pb = decPBBranch(d)
	return b
}

// Save implements sched.Strategy: the explorer's part of what this process
// changed since it was forked: the branches it pushed above the lowest
// point it popped to, the path, the next start.
func (ex *Explorer) Save(e *sched.Enc, over bool) {
	keep := min(ex.low, len(ex.stack))
	pushed := ex.stack[keep:]
	path := ex.path
	if over {
		// Exploration is over (done, or stopped at a bound): what is left
		// to explore does not matter, and a chain of snapshot processes
		// hands the state up once per process.
		keep, pushed, path = 0, nil, nil
	}
	e.Uint(uint64(keep))
	e.Uint(uint64(len(pushed)))
	for i := range pushed {
		encBranch(e, &pushed[i])
	}
	e.Decisions(path)
	encBranch(e, &ex.start)
	e.Bool(ex.done)
	e.Int(int64(ex.pushed))
	e.Int(int64(ex.deepest))
	if ex.pb != nil {
		ex.pbSave(e, over)
	}
	if ex.opt.Sampler != nil {
		ex.opt.Sampler.Save(e)
	}
}

// Load implements sched.Strategy. Decoding errors are the caller's to
// check (x.Err), before it applies the state.
func (ex *Explorer) Load(x *sched.Dec) (func(fresh bool) sched.Strategy, error) {
	keep := x.N()
	if keep > len(ex.stack) {
		return nil, fmt.Errorf("a forked child kept %d branches of %d", keep, len(ex.stack))
	}
	var pushed []branch
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		pushed = append(pushed, decBranch(x))
	}
	path := x.Decisions()
	start := decBranch(x)
	done := x.Bool()
	npushed, deepest := int(x.Int()), int(x.Int())
	var applyPB func(*Explorer)
	if ex.pb != nil {
		applyPB = pbLoad(x)
	}
	if ex.opt.Sampler != nil {
		ex.opt.Sampler.Load(x)
	}
	return func(fresh bool) sched.Strategy {
		to := ex
		if fresh {
			// The child started the exploration over: its explorer is new.
			to, keep = New(ex.opt), 0
		}
		for i := keep; i < len(to.stack); i++ {
			to.stack[i] = branch{}
		}
		to.stack = append(to.stack[:keep], pushed...)
		to.low = min(to.low, keep)
		to.path, to.start, to.done = path, start, done
		to.pushed, to.deepest = npushed, deepest
		if applyPB != nil {
			applyPB(to)
		}
		return to
	}, nil
}
