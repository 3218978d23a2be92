package driver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// Handing exploration state between processes (fork checkpoints).
//
// A forked child starts with its parent's memory, so only what the child
// changed travels back: the current path, the branches it left on the stack
// above the lowest point it popped to, the next start, counters, findings
// and notes. The encoding is private to one test binary (parent and child
// are the same program), so it is a plain sequence of varints.

const handoverMagic = 0x78627331 // "xbs1"

// findingWire is a Finding with the fields JSON does not carry.
type findingWire struct {
	F    *engine.Finding
	Key  string
	Path []byte
}

// encodeFinding encodes a finding with its path and key.
func encodeFinding(f *engine.Finding) []byte {
	var pe sched.Enc
	pe.Decisions(f.Path)
	b, err := json.Marshal(findingWire{F: f, Key: f.Key, Path: pe.B})
	if err != nil {
		b, _ = json.Marshal(findingWire{F: &engine.Finding{Finding: result.Finding{Kind: f.Kind, Message: f.Message}}, Key: f.Key, Path: pe.B})
	}
	return b
}

func decodeFinding(b []byte) (*engine.Finding, error) {
	var w findingWire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("exploration state: %v", err)
	}
	if w.F == nil {
		return nil, errors.New("exploration state: no finding")
	}
	p := &sched.Dec{B: w.Path}
	w.F.Path, w.F.Key = p.Decisions(), w.Key
	return w.F, p.Err
}

// Save encodes what this process changed since it was forked: the
// strategy's part, then the driver's (counters, findings, notes).
func (d *driver) Save() []byte {
	if s := checkpoint.StopRequested(); s != checkpoint.NoStop {
		// Asked to stop: exploration is over, whatever this process was
		// about to do next (the state may go to the zygote directly).
		d.bounded(s)
	}
	var e sched.Enc
	e.Uint(handoverMagic)
	d.strat.Save(&e, d.over)
	d.known.Save(&e)
	e.Int(int64(d.stats.Schedules))
	e.Int(int64(d.stats.Aborted))
	e.Int(int64(max(d.left, d.strat.Pending())))

	e.Uint(uint64(d.last))
	e.Bool(d.stop)
	e.Bool(d.over)
	e.Int(int64(d.restarts))
	e.Int(int64(d.iter))
	e.Bool(d.dirty != "")
	e.Str(d.dirty)
	res := d.res
	e.Strs(res.Warnings)
	e.Strs(res.Notes)
	e.Bool(res.Complete)
	e.Str(res.Bound)
	e.Bool(res.Skipped)
	e.Str(res.Internal)
	e.Uint(uint64(len(d.found)))
	for _, f := range d.found {
		e.Bytes(encodeFinding(f))
	}
	e.Str(d.shardLearnt)
	return e.B
}

// Load merges the state a child saved into this process's.
func (d *driver) Load(b []byte) error {
	x := &sched.Dec{B: b}
	if x.Uint() != handoverMagic {
		return errors.New("a forked child handed back something that is not exploration state")
	}
	apply, err := d.strat.Load(x)
	if err != nil {
		return err
	}
	learnt := engine.NewLearnt()
	learnt.Load(x)
	stats := engine.Stats{Schedules: int(x.Int()), Aborted: int(x.Int())}
	left := int(x.Int())
	last, stop, over, restarts, iter := engine.EndReason(x.Uint()), x.Bool(), x.Bool(), int(x.Int()), int(x.Int())
	isDirty, dirty := x.Bool(), x.Str()
	warnings, notes := x.Strs(), x.Strs()
	complete, bound, skipped, internal := x.Bool(), x.Str(), x.Bool(), x.Str()
	var findings []*engine.Finding
	for n := x.N(); n > 0 && x.Err == nil; n-- {
		f, err := decodeFinding(x.Bytes())
		if err != nil {
			return err
		}
		findings = append(findings, f)
	}
	shardLearnt := x.Str()
	if x.Err != nil {
		return x.Err
	}
	d.strat = apply(restarts != d.restarts)
	*d.known, d.stats = *learnt, stats // in place: an execution under way (a snapshot's) holds d.known
	d.statsBase, d.shardLearnt = stats, shardLearnt
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
		d.seen[f.Key] = f
	}
	clear(d.warned)
	for _, w := range warnings {
		d.warned[w] = true
	}
	return nil
}
