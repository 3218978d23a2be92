package driver

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
	"github.com/xbtest/xbtest/settings"
)

// Degrees to which a finding is the one a schedule should lead to.
const (
	matchNone  = iota
	matchWeak  // the same kind at the same place (after an edit, say), with another message
	matchExact // the same finding
)

// follow runs guided executions along blocks until one ends: an execution
// that finds a goroutine blocked on a lock, or a TryLock, ends early (as in
// exploration) and the next one starts over knowing it. It returns the
// finding that match rates highest (an exact one at once, a weak one when
// the last execution has no exact one), the guide and the last execution's
// end.
func (d *driver) follow(blocks []result.Block, trace bool, match func(*engine.Finding) int) (*engine.Finding, *engine.Guide, engine.EndReason) {
	cfg := *d.cfg
	cfg.Algorithm = settings.ExitBlockDD
	cfg.Trace = trace
	g := engine.NewGuide(&d.r, blocks, trace)
	for range 64 + 4*len(blocks) {
		// Guided executions are ExitBlock-DD's (see package guide), whatever
		// strategy found the schedule; their paths are not counted.
		ex := newStrategy(&cfg, g)
		g.Reset()
		hints := g.Hints()
		r := &d.r
		var stats engine.Stats
		r.Reset(ex, g, d.known, &stats, &cfg, d.name, d.body, nil)
		r.SetNumber(1)
		why := r.Execute(d.tick)
		var weak *engine.Finding
		for _, f := range r.Findings() {
			switch match(f) {
			case matchExact:
				return f, g, why
			case matchWeak:
				weak = cmp.Or(weak, f)
			}
		}
		if g.Diverged() != "" || r.Internal() != "" || engine.Tainted() != "" {
			if r.Internal() != "" && g.Diverged() == "" {
				g.SetDiverged(r.Internal())
			}
			return weak, g, why
		}
		if why == engine.EndAbort && g.Hints() > hints || why == engine.EndRestart {
			continue
		}
		return weak, g, why
	}
	return nil, g, engine.EndInternal
}

// minimise tries to shorten f's schedule while it still leads to the same
// finding (the same key), and keeps the schedule with the fewest
// preemptions, then the fewest blocks, then the fewest scheduling points.
// Two kinds of candidates are followed:
//
//   - a prefix of the blocks, after which the goroutine running at its end
//     goes on without preemption (the explorer's first choices);
//   - the schedule with one preemption removed: the preempted block is
//     joined by the next block of the same goroutine, the blocks of the
//     others in between run after it (greedily, while it helps).
//
// Candidates are followed by goroutine and scheduling-point count only;
// one that no longer fits the program (a goroutine that cannot run, a block
// that blocks early) is dropped.
func (d *driver) minimise(f *engine.Finding, until time.Time) {
	orig := f.Blocks
	best := orig
	var bestF *engine.Finding
	tries, stopped := 0, false
	try := func(cand []result.Block) bool {
		if stopped || time.Now().After(until) {
			stopped = true
			return false
		}
		if d.pkgState != nil && d.pkgState.changed() != "" {
			// The last try changed package state: another would not
			// start from the state the finding was found in.
			return false
		}
		tries++
		g, _, _ := d.follow(cand, false, func(g *engine.Finding) int {
			if g.Key == f.Key {
				return matchExact
			}
			return matchNone
		})
		if g == nil {
			return false
		}
		path := mergePath(g.Path)
		_, blocks := d.trace(path)
		if blocks == nil || !shorter(blocks, best) {
			return false
		}
		best, bestF = blocks, g
		bestF.Path = path
		return true
	}
	const maxTries = 200 // of joined preemptions, after the prefixes
	n := len(orig)
	step := max(1, n/48) // at most ~50 prefixes however long the schedule
	for k := 0; k < n; k += step {
		if result.Preemptions(orig[:k]) > result.Preemptions(best) {
			break // prefixes only grow in preemptions
		}
		try(orig[:k])
	}
	for improved := true; improved && tries < maxTries && !stopped; {
		improved = false
		for i := range best {
			if tries >= maxTries || stopped {
				// Checked here too: a schedule of thousands of
				// preemptions (a goroutine stopped at -max-steps) offers
				// a candidate at each, and every candidate is a copy.
				break
			}
			if cand := joinNext(best, i); cand != nil && try(cand) {
				improved = true
				break
			}
		}
	}
	f.Shortened = &result.Shortened{Blocks: n, Preemptions: result.Preemptions(orig), Tries: tries, Stopped: stopped}
	if bestF == nil {
		return
	}
	f.Message, f.Pos, f.Goroutines, f.Log, f.Path = bestF.Message, bestF.Pos, bestF.Goroutines, bestF.Log, bestF.Path
	if !d.describeOne(f) {
		f.Blocks = best
	}
}

// joinNext returns bs without the preemption that ends block i: the next
// block of the same goroutine is joined to it, and the blocks of the others
// in between come after. nil if block i is no preemption or its goroutine
// runs no more.
func joinNext(bs []result.Block, i int) []result.Block {
	if !bs[i].Preempt {
		return nil
	}
	for j := i + 1; j < len(bs); j++ {
		if bs[j].Thread != bs[i].Thread {
			continue
		}
		m := bs[j]
		m.Points = bs[i].Points + bs[j].Points
		m.Choices = append(append([]int32(nil), bs[i].Choices...), bs[j].Choices...)
		out := append(append([]result.Block(nil), bs[:i]...), m)
		if m.Mid {
			return out // the finding's block: the others' blocks before it are dropped
		}
		out = append(out, bs[i+1:j]...)
		return append(out, bs[j+1:]...)
	}
	return nil
}

func points(bs []result.Block) int {
	n := 0
	for _, b := range bs {
		n += b.Points
	}
	return n
}

func shorter(a, b []result.Block) bool {
	if pa, pb := result.Preemptions(a), result.Preemptions(b); pa != pb {
		return pa < pb
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return points(a) < points(b)
}

// wantMatches rates a finding against the wanted one: the same kind at the same
// position, or at a position whose line moved but whose file and source
// text are the same, is a weak match, and exact with the same message too
// (an execution may have several findings of a kind at one position: races
// on two variables accessed on one line).
func wantMatches(w result.Want, f *engine.Finding) int {
	if f.Kind != w.Kind {
		return matchNone
	}
	if w.Pos != "" && f.Pos != w.Pos {
		wf, _, _ := strings.Cut(w.Pos, ":")
		ff, _, _ := strings.Cut(f.Pos, ":")
		if wf != ff || w.Src == "" || srcpos.SourceAt(f.Pos) != w.Src {
			return matchNone
		}
	}
	if w.Message == "" || f.Message == w.Message {
		return matchExact
	}
	return matchWeak
}

// Replay follows a recorded schedule once, with tracing (xbtest -replay):
// the result holds the finding the schedule led to, if it is the wanted one,
// every scheduling point, and where the program stopped following the
// schedule if it did.
func Replay(name string, body func(*testingobj.T), cfg engine.Config, blocks []result.Block, want result.Want) (res *result.Result) {
	res = &result.Result{Test: name, Semantics: cfg.Semantics, Backer: "replay", Complete: true}
	out := &result.ReplayOutcome{FindingStep: -1, Blocks: len(blocks)}
	res.Replay = out
	if err := cfg.Normalize(); err != nil {
		res.Internal = err.Error()
		return res
	}
	res.Semantics = cfg.Semantics
	if m := engine.Tainted(); m != "" {
		res.Internal = m
		return res
	}
	if len(blocks) == 0 || blocks[0].Thread != 0 {
		out.Diverged = "the schedule does not start with the test goroutine T0"
		return res
	}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res.Internal = fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())
			engine.Detach()
		}
		res.Elapsed = time.Since(start)
	}()
	cfg.Minimise = false
	d := &driver{strat: newStrategy(&cfg, nil), known: engine.NewLearnt(), cfg: &cfg, name: name, body: testingobj.Body(body), res: res, seen: map[string]*engine.Finding{}, warned: map[string]bool{}}
	if cfg.Watchdog > 0 {
		d.tick = time.NewTicker(engine.WatchdogTick(cfg.Watchdog))
		defer d.tick.Stop()
	}
	f, g, _ := d.follow(blocks, true, func(f *engine.Finding) int { return wantMatches(want, f) })
	res.Schedules = 1
	*out = *d.r.Outcome(g, f)
	out.Blocks = len(blocks)
	if f != nil {
		f.Count, f.Schedule = 1, 1
		res.Findings = []*result.Finding{&f.Finding}
		return res
	}
	if m := engine.Tainted(); m != "" && out.Diverged == "" {
		res.Internal = m
	}
	// What the schedule led to instead, for the report.
	for _, ff := range d.r.Findings() {
		ff.Count, ff.Schedule = 1, 1
		res.Findings = append(res.Findings, &ff.Finding)
	}
	return res
}
