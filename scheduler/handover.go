package scheduler

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
)

// Handing exploration state between processes (fork checkpoints).
//
// A forked child starts with its parent's memory, so only what the child
// changed travels back: the current path, the branches it left on the stack
// above the lowest point it popped to, the next start, counters, findings
// and notes. The encoding is private to one test binary (parent and child
// are the same program), so it is a plain sequence of varints.

const handoverMagic = 0x78627331 // "xbs1"

type enc struct{ b []byte }

func (e *enc) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) bool(v bool) {
	if v {
		e.uint(1)
	} else {
		e.uint(0)
	}
}
func (e *enc) bytes(v []byte) { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) str(v string)   { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) strs(v []string) {
	e.uint(uint64(len(v)))
	for _, s := range v {
		e.str(s)
	}
}
func (e *enc) int32s(v []int32) {
	e.bool(v != nil)
	e.uint(uint64(len(v)))
	for _, x := range v {
		e.int(int64(x))
	}
}

type dec struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated exploration state")

func (d *dec) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}

func (d *dec) bool() bool { return d.uint() != 0 }

func (d *dec) n() int {
	n := d.uint()
	if n > uint64(len(d.b))+1<<20 || n > math.MaxInt32 {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *dec) bytes() []byte {
	n := d.n()
	if n > len(d.b) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) strs() []string {
	n := d.n()
	var v []string
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, d.str())
	}
	return v
}

func (d *dec) int32s() []int32 {
	isNil := !d.bool()
	n := d.n()
	if isNil {
		return nil
	}
	v := make([]int32, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, int32(d.int()))
	}
	return v
}

func (e *enc) decision(x *decision) {
	e.int(int64(x.thread))
	e.int(x.end)
	e.int32s(x.choices)
	e.bool(x.mid)
	e.bool(x.tick)
}

func (d *dec) decision() decision {
	return decision{thread: int32(d.int()), end: d.int(), choices: d.int32s(), mid: d.bool(), tick: d.bool()}
}

func (e *enc) decisions(v []decision) {
	e.uint(uint64(len(v)))
	for i := range v {
		e.decision(&v[i])
	}
}

func (d *dec) decisions() []decision {
	n := d.n()
	v := make([]decision, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, d.decision())
	}
	return v
}

func (e *enc) access(a *canonAccess) {
	e.uint(uint64(a.kind))
	e.uint(uint64(a.addr))
	e.int(int64(a.key.thread))
	e.int(int64(a.key.seq))
	e.uint(uint64(a.off))
	e.uint(uint64(a.size))
	e.bool(a.write)
}

func (d *dec) access() canonAccess {
	return canonAccess{kind: regionKind(d.uint()), addr: uintptr(d.uint()), key: heapKey{int32(d.int()), int32(d.int())},
		off: uintptr(d.uint()), size: uintptr(d.uint()), write: d.bool()}
}

func (e *enc) state(s *ebState) {
	e.uint(uint64(len(s.enabled.w)))
	for _, w := range s.enabled.w {
		e.uint(w)
	}
	e.uint(uint64(len(s.delayed)))
	for _, dt := range s.delayed {
		e.int(int64(dt.t))
		e.bool(dt.yield)
		e.bool(dt.rw != nil)
		if dt.rw != nil {
			e.bool(dt.rw.unknownR)
			e.bool(dt.rw.unknownW)
			e.uint(uint64(len(dt.rw.acc)))
			for i := range dt.rw.acc {
				e.access(&dt.rw.acc[i])
			}
		}
	}
	e.uint(uint64(len(s.blocked)))
	for _, b := range s.blocked {
		e.int(int64(b.t))
		e.int(int64(b.lock))
		e.uint(uint64(b.pc))
	}
}

func (d *dec) state() ebState {
	var s ebState
	for n := d.n(); n > 0 && d.err == nil; n-- {
		s.enabled.w = append(s.enabled.w, d.uint())
	}
	for n := d.n(); n > 0 && d.err == nil; n-- {
		dt := delayedThread{t: int32(d.int()), yield: d.bool()}
		if d.bool() {
			rw := &canonRW{unknownR: d.bool(), unknownW: d.bool()}
			for m := d.n(); m > 0 && d.err == nil; m-- {
				rw.acc = append(rw.acc, d.access())
			}
			dt.rw = rw
		}
		s.delayed = append(s.delayed, dt)
	}
	for n := d.n(); n > 0 && d.err == nil; n-- {
		s.blocked = append(s.blocked, blockedThread{t: int32(d.int()), lock: int32(d.int()), pc: uintptr(d.uint())})
	}
	return s
}

func (e *enc) branch(b *branch) {
	e.int(int64(b.depth))
	e.bool(b.extra != nil)
	if b.extra != nil {
		e.decision(b.extra)
	}
	e.state(&b.st)
	e.bool(b.plan != nil)
	if b.plan != nil {
		e.int(int64(b.plan.thread))
		e.int32s(b.plan.fixed)
		e.int32s(b.plan.exclude)
		e.bool(b.plan.tick)
	}
}

func (d *dec) branch() branch {
	b := branch{depth: int(d.int())}
	if d.bool() {
		x := d.decision()
		b.extra = &x
	}
	b.st = d.state()
	if d.bool() {
		b.plan = &blockPlan{thread: int32(d.int()), fixed: d.int32s(), exclude: d.int32s(), tick: d.bool()}
	}
	return b
}

// findingWire is a Finding with the fields JSON does not carry.
type findingWire struct {
	F    *finding
	Key  string
	Path []byte
}

// encodeFinding encodes a finding with its path and key.
func encodeFinding(f *finding) []byte {
	var pe enc
	pe.decisions(f.path)
	b, err := json.Marshal(findingWire{F: f, Key: f.key, Path: pe.b})
	if err != nil {
		b, _ = json.Marshal(findingWire{F: &finding{Finding: result.Finding{Kind: f.Kind, Message: f.Message}}, Key: f.key, Path: pe.b})
	}
	return b
}

func decodeFinding(b []byte) (*finding, error) {
	var w findingWire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("exploration state: %v", err)
	}
	if w.F == nil {
		return nil, errors.New("exploration state: no finding")
	}
	p := &dec{b: w.Path}
	w.F.path, w.F.key = p.decisions(), w.Key
	return w.F, p.err
}

// save implements strategy: the explorer's part of what this process
// changed since it was forked: the branches it pushed above the lowest
// point it popped to, the path, the next start.
func (ex *explorer) save(e *enc, over bool) {
	keep := min(ex.low, len(ex.stack))
	pushed := ex.stack[keep:]
	path := ex.path
	if over {
		// Exploration is over (done, or stopped at a bound): what is left
		// to explore does not matter, and a chain of snapshot processes
		// hands the state up once per process.
		keep, pushed, path = 0, nil, nil
	}
	e.uint(uint64(keep))
	e.uint(uint64(len(pushed)))
	for i := range pushed {
		e.branch(&pushed[i])
	}
	e.decisions(path)
	e.branch(&ex.start)
	e.bool(ex.done)
	e.int(int64(ex.pushed))
	e.int(int64(ex.deepest))
}

// load implements strategy. Decoding errors are the caller's to check
// (x.err), before it applies the state.
func (ex *explorer) load(x *dec) (func(fresh bool) strategy, error) {
	keep := x.n()
	if keep > len(ex.stack) {
		return nil, fmt.Errorf("a forked child kept %d branches of %d", keep, len(ex.stack))
	}
	var pushed []branch
	for n := x.n(); n > 0 && x.err == nil; n-- {
		pushed = append(pushed, x.branch())
	}
	path := x.decisions()
	start := x.branch()
	done := x.bool()
	npushed, deepest := int(x.int()), int(x.int())
	return func(fresh bool) strategy {
		to := ex
		if fresh {
			// The child started the exploration over: its explorer is new.
			to, keep = newExplorer(ex.cfg), 0
		}
		for i := keep; i < len(to.stack); i++ {
			to.stack[i] = branch{}
		}
		to.stack = append(to.stack[:keep], pushed...)
		to.low = min(to.low, keep)
		to.path, to.start, to.done = path, start, done
		to.pushed, to.deepest = npushed, deepest
		return to
	}, nil
}

// Save encodes what this process changed since it was forked: the
// strategy's part, then the driver's (counters, findings, notes).
func (d *driver) Save() []byte {
	if s := checkpoint.StopRequested(); s != checkpoint.NoStop {
		// Asked to stop: exploration is over, whatever this process was
		// about to do next (the state may go to the zygote directly).
		d.bounded(s)
	}
	var e enc
	e.uint(handoverMagic)
	d.strat.save(&e, d.over)
	for _, set := range []struct {
		all bool
		m   map[canonAccess]bool
	}{{d.known.triedAll, d.known.tried}, {d.known.mixedAll, d.known.mixed}} {
		e.bool(set.all)
		e.uint(uint64(len(set.m)))
		for a := range set.m {
			e.access(&a)
		}
	}
	e.int(int64(d.stats.schedules))
	e.int(int64(d.stats.aborted))
	e.int(int64(max(d.left, d.strat.pending())))

	e.uint(uint64(d.last))
	e.bool(d.stop)
	e.bool(d.over)
	e.int(int64(d.restarts))
	e.int(int64(d.iter))
	e.bool(d.dirty != "")
	e.str(d.dirty)
	res := d.res
	e.strs(res.Warnings)
	e.strs(res.Notes)
	e.bool(res.Complete)
	e.str(res.Bound)
	e.bool(res.Skipped)
	e.str(res.Internal)
	e.uint(uint64(len(d.found)))
	for _, f := range d.found {
		e.bytes(encodeFinding(f))
	}
	return e.b
}

// Load merges the state a child saved into this process's.
func (d *driver) Load(b []byte) error {
	x := &dec{b: b}
	if x.uint() != handoverMagic {
		return errors.New("a forked child handed back something that is not exploration state")
	}
	apply, err := d.strat.load(x)
	if err != nil {
		return err
	}
	learnt := newLearnt()
	for _, set := range []struct {
		all *bool
		m   map[canonAccess]bool
	}{{&learnt.triedAll, learnt.tried}, {&learnt.mixedAll, learnt.mixed}} {
		*set.all = x.bool()
		for n := x.n(); n > 0 && x.err == nil; n-- {
			set.m[x.access()] = true
		}
	}
	stats := exploreStats{schedules: int(x.int()), aborted: int(x.int())}
	left := int(x.int())
	last, stop, over, restarts, iter := endReason(x.uint()), x.bool(), x.bool(), int(x.int()), int(x.int())
	isDirty, dirty := x.bool(), x.str()
	warnings, notes := x.strs(), x.strs()
	complete, bound, skipped, internal := x.bool(), x.str(), x.bool(), x.str()
	var findings []*finding
	for n := x.n(); n > 0 && x.err == nil; n-- {
		f, err := decodeFinding(x.bytes())
		if err != nil {
			return err
		}
		findings = append(findings, f)
	}
	if x.err != nil {
		return x.err
	}
	d.strat = apply(restarts != d.restarts)
	d.known, d.stats = learnt, stats
	d.last, d.stop, d.over, d.restarts, d.iter = last, stop, over, restarts, iter
	d.left = left
	if isDirty {
		d.dirty = dirty
	}
	d.res.Warnings, d.res.Notes = warnings, notes
	d.res.Complete, d.res.Bound, d.res.Skipped, d.res.Internal = complete, bound, skipped, internal
	d.found = findings
	clear(d.seen)
	for _, f := range findings {
		d.seen[f.key] = f
	}
	clear(d.warned)
	for _, w := range warnings {
		d.warned[w] = true
	}
	return nil
}
