package driver

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
	"github.com/xbtest/xbtest/settings"
)

// Explore runs body once per schedule the configured algorithm explores and
// returns what it found. name is the test's name in reports.
func Explore(name string, body func(*testingobj.T), cfg engine.Config) *result.Result {
	if cfg.Backer == nil {
		cfg.Backer = engine.BackerFor(cfg.Checkpoint)
	}
	res := &result.Result{Test: name, Semantics: cfg.Semantics, Complete: true}
	if err := cfg.Normalize(); err != nil {
		res.Internal, res.Complete = err.Error(), false
		return res
	}
	res.Semantics, res.Backer = cfg.Semantics, cfg.Backer.Name()
	if cfg.Algorithm == settings.Brute {
		cfg.Oracle, cfg.OracleSpawns, cfg.Brute = true, true, true
	}
	if m := engine.Tainted(); m != "" {
		res.Internal = "not explored, an earlier test left a goroutine xbtest could not stop: " + m
		res.Complete = false
		return res
	}
	if interrupted.Load() {
		res.Complete, res.Bound = false, checkpoint.StopInterrupt.String()
		res.Internal = "not explored: xbtest was interrupted"
		return res
	}
	checkpoint.ClearStop()
	// Goroutines started outside any execution and held by one of this
	// test's go on once it is explored (engine/outside.go).
	defer engine.ReleaseOutside()
	if cfg.Timeout > 0 {
		// The bound holds within an execution too: the scheduler checks
		// the request every few hundred events, in whichever process
		// runs the execution.
		defer checkpoint.StopAfter(cfg.Timeout, checkpoint.StopTime)()
	}
	start := time.Now()
	d := &driver{known: engine.NewLearnt(), cfg: &cfg, name: name, body: testingobj.Body(body), res: res, seen: map[string]*engine.Finding{}, warned: map[string]bool{}, start: start}
	if d.team = joinTeam(&cfg, name, d.Note); d.team != nil { // team.go
		// The claims are the current tree's: a restart starts another.
		cfg.Claim = func(slot int) bool { return d.team.claim(d.restarts, slot) }
	}
	defer d.team.leave()
	d.strat = newStrategy(&cfg, nil)
	defer func() {
		if p := recover(); p != nil {
			res.Internal = fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())
			res.Complete = false
			engine.Detach()
			if checkpoint.InChild() {
				// Never back into the test binary's code from a fork.
				d.Fail(res.Internal)
				checkpoint.Leave(d.Save())
			}
		}
	}()
	if cfg.Watchdog > 0 {
		d.tick = time.NewTicker(engine.WatchdogTick(cfg.Watchdog))
		defer d.tick.Stop()
	}
	if d.shardIdle() { // partition.go
		noteStrategy(d.res, d.cfg, d.strat) // strategyresult.go
		d.shardResult(res)
		res.Elapsed = time.Since(start)
		return res
	}
	d.pkgState = packageState()
	cfg.Backer.Explore(d)
	d.noteFlushPasses()
	res = d.res
	res.Warnings = oneHoldEach(res.Warnings)
	noteStrategy(d.res, d.cfg, d.strat) // strategyresult.go
	res.Findings = publicFindings(d.found)
	res.Schedules = d.stats.Schedules
	res.Depth = d.strat.MaxDepth()
	if !res.Complete {
		res.Left = max(d.left, d.strat.Pending())
	}
	res.Aborted = d.stats.Aborted
	d.shardResult(res) // partition.go
	res.Elapsed = time.Since(start)
	return res
}

// advance is the end of an iteration of the thesis's loop, after an
// execution: pop the next branch ("goto DONE" when there is none), or stop
// at a bound.
func (d *driver) advance() {
	cfg := d.cfg
	switch {
	case d.stop:
		d.over = true
		return
	case d.r.Restart():
		d.restart()
		return
	case d.known.FlushPassGrew():
		d.nextFlushPass(true)
	case !d.strat.Next(d.last == engine.EndAbort) && !d.nextFlushPass(false):
		d.over = true
		return
	}
	if cfg.MaxSchedules > 0 && d.team.counted(0, d.stats.Schedules) >= cfg.MaxSchedules { // a team's together (team.go)
		d.res.Complete, d.res.Bound = false, "schedules"
		d.over = true
		return
	}
	if d.iter++; d.iter&7 != 0 {
		return // reading the clock costs a few percent of a small execution
	}
	now := time.Now()
	if cfg.Timeout > 0 && now.Sub(d.start) > cfg.Timeout {
		d.bounded(checkpoint.StopTime)
		return
	}
	if cfg.Progress != nil && now.Sub(d.lastProgress) >= time.Second {
		d.lastProgress = now
		cfg.Progress(result.Progress{Schedules: d.stats.Schedules, Findings: len(d.found),
			Depth: d.strat.StartDepth(), MaxDepth: d.strat.MaxDepth(), Left: max(d.left, d.strat.Pending())})
	}
}

// restart starts the exploration over, keeping what it learnt (TryLocks,
// RWMutexes): findings so far were found on schedules of the old tree and
// are found again.
func (d *driver) restart() {
	d.strat = newStrategy(d.cfg, nil) // d.known stays
	d.found = nil
	clear(d.seen)
	d.restarts++
}

// Under -memory tso|pso the exploration runs in passes over the store
// buffers (package storebuf): each pass after the first starts the
// exploration over with a fresh strategy, keeping the findings.

// nextFlushPass is called when a pass has explored its last schedule or
// learnt a racy location: it reports whether another pass starts (and
// starts it), keeping the findings.
func (d *driver) nextFlushPass(learnt bool) bool {
	if !d.known.NextFlushPass(d.cfg, learnt, d.stats.Schedules) {
		return false
	}
	d.strat = newStrategy(d.cfg, nil)
	d.restarts++
	return true
}

// noteFlushPasses says in the result what the passes did.
func (d *driver) noteFlushPasses() {
	if d.res.Replay != nil {
		return
	}
	if n := d.known.FlushPassesNote(d.cfg, d.res.Complete, d.stats.Schedules); n != "" {
		d.Note(n)
	}
}

// driver runs the executions of one exploration; it is the checkpoint
// package's Target.
type driver struct {
	strat    sched.Strategy
	known    *engine.Learnt // what the exploration learnt; kept when it starts over
	stats    engine.Stats   // the engine counts into them
	cfg      *engine.Config
	name     string
	body     engine.Body
	res      *result.Result
	seen     map[string]*engine.Finding
	found    []*engine.Finding // the distinct findings, in the order seen (res.Findings at the end)
	warned   map[string]bool
	last     engine.EndReason
	stop     bool
	over     bool // exploration has ended (the stack is empty, or a bound)
	restarts int
	r        engine.Execution // reused by every execution
	tick     *time.Ticker     // the watchdog's clock

	start, lastProgress time.Time
	iter                int
	// pkgState is the package-level state before the first execution;
	// dirty says how an execution left it changed (see fingerprint.go).
	pkgState *stateFingerprint
	dirty    string
	// left is how many branches were still to explore when a forked
	// process stopped exploring early (its stack is not handed up).
	left int
	// statsBase is stats before the execution under way (or as a
	// fork's hand-over left them): an execution another shard counts
	// leaves them so (partition.go). shardLearnt says what this shard
	// learnt in its own part of the tree.
	statsBase   engine.Stats
	shardLearnt string
	team        *team // -parallel's (team.go)
}

// Next implements checkpoint.Target.
func (d *driver) Next() int {
	if d.over {
		return -1
	}
	if s := checkpoint.StopRequested(); s != checkpoint.NoStop {
		d.bounded(s)
		return -1
	}
	return d.strat.StartDepth()
}

// bounded ends exploration early: a bound or a request to stop.
func (d *driver) bounded(s checkpoint.Stop) {
	d.res.Complete = false
	if d.res.Bound == "" {
		d.res.Bound = s.String()
	}
	d.over = true
}

// RunFrom implements checkpoint.Target: one execution from the start of
// the test body that replays the current path to the next start, then
// explores; then the explorer advances to the following start.
func (d *driver) RunFrom(n int) {
	if n != d.strat.StartDepth() {
		d.Fail("internal error: backer asked for another depth than the explorer's branch point")
		return
	}
	r := &d.r
	r.Reset(d.strat, nil, d.known, &d.stats, d.cfg, d.name, d.body, d.strat.ReplayPrefix())
	r.SetNumber(d.stats.Schedules + 1)
	_, rerun := d.cfg.Backer.(checkpoint.Rerun)
	// A branch-point snapshot holds the state of a prefix that the next
	// starts share, which depth-first order guarantees and the other
	// strategies do not (a pb branch that waited resumes another path).
	r.OfferSnapshots(d, !rerun && d.cfg.Strategy == settings.DFS)
	d.statsBase = d.stats
	learnt0 := d.known.Size()
	d.last = r.Execute(d.tick)
	counts := d.shardCounts(d.last == engine.EndAbort) // partition.go
	if !counts {
		r.DropFindings()
	}
	d.collect(r)
	if !counts {
		d.stats = d.statsBase
	} else if d.team != nil {
		d.team.counted(d.stats.Schedules-d.statsBase.Schedules, d.stats.Schedules)
	}
	d.noteShardLearnt(learnt0)
	if d.dirty == "" && r.Changed() != "" {
		d.dirty = r.Changed()
	}
	if d.dirty == "" && d.pkgState != nil {
		d.dirty = d.pkgState.changed()
	}
	d.advance()
}

// Clean implements checkpoint.Target.
func (d *driver) Clean() (bool, string) {
	return d.dirty == "", d.dirty
}

// Forked implements checkpoint.Target: this process is a new child; what it
// saves is relative to the stack it has now.
func (d *driver) Forked() { d.strat.Forked() }

// Alive implements checkpoint.Target: the driver's watchdog counts it as
// progress of the execution this process holds as a snapshot.
func (d *driver) Alive() { d.r.Alive() }

// Fail implements checkpoint.Target.
func (d *driver) Fail(msg string) {
	if d.res.Internal == "" {
		d.res.Internal = msg
	}
	d.res.Complete = false
	d.stop, d.over = true, true
}

// Note implements checkpoint.Target.
func (d *driver) Note(msg string) {
	for _, n := range d.res.Notes {
		if n == msg {
			return
		}
	}
	d.res.Notes = append(d.res.Notes, msg)
}

// collect merges an execution's findings into the result.
func (d *driver) collect(r *engine.Execution) {
	switch {
	case r.Why() == engine.EndBound:
		d.bounded(r.Bound())
	case r.Why() == engine.EndFailure && r.Explored():
		// A panic or t.FailNow ended the path: it was explored to its
		// end, which is a failure.
		d.stats.Schedules++
	}
	// A goroutine started outside any execution (package initialisation)
	// was held while the test ran (engine/outside.go): what the test does
	// interleaved with it is not explored, and a goroutine that waits for
	// it waits for a goroutine Go would have run.
	held := engine.HeldOutside()
	for _, h := range held {
		if key := "held " + h.Started; !d.warned[key] {
			d.warned[key] = true
			d.res.Warnings = append(d.res.Warnings, fmt.Sprintf(heldStarted+"%s"+heldBefore+"was held while the test ran (at %s), so its interleavings with the test are not explored", h.Started, h.At))
		}
		d.res.Complete = false
		if d.res.Bound == "" {
			d.res.Bound = result.BoundOutside
		}
	}
	inRun := map[string]bool{}
	for _, f := range r.Findings() {
		if inRun[f.Key] {
			continue
		}
		inRun[f.Key] = true
		if len(held) > 0 && waitsForProgress(f.Kind) {
			w := fmt.Sprintf("a %s at %s is not reported: a goroutine held while the test ran (see above) may be what it waited for", f.Kind, f.Pos)
			if !d.warned[w] {
				d.warned[w] = true
				d.res.Warnings = append(d.res.Warnings, w)
			}
			continue
		}
		if d.cfg.OnFinding != nil {
			d.cfg.OnFinding(f)
		}
		if g := d.seen[f.Key]; g != nil {
			g.Count++
			if g.AfterGC && !f.AfterGC {
				// Seen again with no collection in between: a race of
				// one object. Its schedule is this execution's.
				n := g.Count
				*g = *f
				g.Count, g.Schedule = n, r.Number()
				if d.cfg.Found != nil {
					d.cfg.Found(&g.Finding)
				}
			}
			continue
		}
		f.Count, f.Schedule = 1, r.Number()
		d.seen[f.Key] = f
		d.found = append(d.found, f)
		if d.cfg.Found != nil && !f.AfterGC {
			// A race after a collection is not streamed before it is
			// confirmed (Describe): if the binary ends before that, it
			// is not reported unconfirmed.
			d.cfg.Found(&f.Finding)
		}
		if d.cfg.Stop {
			d.stop = true
			d.res.Complete, d.res.Bound = false, "stop"
		}
	}
	for _, n := range r.Notes() {
		d.Note(n)
	}
	if r.GaveWay() > 0 {
		d.Note(fmt.Sprintf("fairness: a goroutine that polled (%d atomic blocks in a row ending at the same synchronization objects while another goroutine could run) was made to give way, as Go's scheduler preempts it; longer runs of it are not explored (-fair-blocks)", d.cfg.FairBlocks))
	}
	for _, w := range r.Warnings() {
		if !d.warned[w] {
			d.warned[w] = true
			d.res.Warnings = append(d.res.Warnings, w)
			d.res.Complete = false
			if d.res.Bound == "" {
				d.res.Bound = "steps"
			}
		}
	}
	if r.Skipped() {
		d.res.Skipped = true
		d.stop = true
	}
	internal := r.Internal()
	if internal == "" {
		internal = engine.Tainted()
	}
	if internal != "" {
		d.res.Internal = internal
		d.res.Complete = false
		d.stop = true
	}
}

// shortenFor bounds the time all of a test's findings spend being
// shortened (minimise): each try replays the schedule twice, once traced,
// and a schedule of a goroutine stopped at -max-steps runs every step of
// it, so trying all ~250 candidates of a long one would take minutes (and
// past the command's grace for describing under -timeout, the binary is
// killed and the findings lose their schedule files). What was found
// shortest by then is kept, and the finding says the shortening stopped.
const shortenFor = 10 * time.Second

// describeFor bounds the time all of a test's findings spend being
// described: an execution that replays (traced), shortens or verifies a
// finding's schedule and is still running then ends as a bound
// (engine.Config.DescribeUntil), and the finding says what was not done:
// its schedule not followed to its end (it keeps its schedule file), or,
// if even the traced replay of its path was cut, no schedule file. A long
// test (otter's TestCache_DeletionListenerWritesTheKey: over 100,000
// blocks in one execution that -timeout cut) takes minutes to replay, past
// the command's grace for describing (30 s): the binary was killed and
// every finding lost. A race seen after a collection and not confirmed
// within the bound is not reported. A variable for tests
// (SetDescribeForTest).
var describeFor = 20 * time.Second

// SetDescribeForTest sets describeFor; restore undoes it.
func SetDescribeForTest(d time.Duration) (restore func()) {
	old := describeFor
	describeFor = d
	return func() { describeFor = old }
}

// Describe implements checkpoint.Target: it replays the first schedule of
// each finding with tracing on, to give every goroutine of the report its
// position and the schedule its blocks, then tries to shorten the schedule
// (see minimise). Each finding is described on a copy of the initial
// program state (the backer's Isolate: a forked child when the body may
// change package state).
func (d *driver) Describe() {
	if len(d.found) > 0 && d.cfg.Describing != nil {
		d.cfg.Describing()
	}
	shortenUntil := time.Now().Add(shortenFor)
	d.cfg.DescribeUntil = time.Now().Add(describeFor)
	defer func() { d.cfg.DescribeUntil = time.Time{} }()
	afterGC := map[*engine.Finding]bool{}
	for _, f := range d.found {
		afterGC[f] = f.AfterGC
	}
	for _, f := range d.found {
		if d.res.Internal != "" || engine.Tainted() != "" {
			break
		}
		out := d.cfg.Backer.Isolate(d, func() []byte {
			f.Path = mergePath(f.Path)
			if !d.describeOne(f) {
				f.Unreproduced = "its schedule could not be replayed"
				if time.Now().After(d.cfg.DescribeUntil) {
					f.Unreproduced = fmt.Sprintf("describing the test's findings took %v: its schedule was not replayed", describeFor)
				}
				return encodeFinding(f)
			}
			if d.cfg.Minimise && checkpoint.StopRequested() == checkpoint.NoStop {
				d.minimise(f, shortenUntil)
			}
			d.verify(f)
			return encodeFinding(f)
		})
		if g, err := decodeFinding(out); err == nil {
			*f = *g
		}
	}
	d.found = slices.DeleteFunc(d.found, func(f *engine.Finding) bool {
		if !afterGC[f] || f.Unreproduced == "" {
			return false
		}
		d.Note(fmt.Sprintf("race detection: the %s at %s, seen on schedule %d after the garbage collector ran, did not recur when its schedule was replayed (%s), and no execution without a collection showed it: not reported (a collection can give a freed object's address to a new one, and race detection knows memory by address)", f.Message, f.Pos, f.Schedule, f.Unreproduced))
		delete(d.seen, f.Key)
		return true
	})
	sort.SliceStable(d.found, func(i, j int) bool { return d.found[i].Schedule < d.found[j].Schedule })
}

// verify follows f's schedule as xbtest -replay will (from the start of the
// test body, by goroutine, scheduling points and anchors) and notes when it
// does not lead to f again: a finding is reported with a schedule file that
// replays it, or says it does not.
//
// A race seen after a collection (AfterGC) is confirmed only by a replay
// that shows it with no collection: one that collects again may give a
// freed object's address to a new one again, and pair the same two
// accesses (a race is known by its accesses' positions) on two objects
// again (otter's TestCache_DeletionListenerWritesTheKey: a listener's
// variables moved to the heap, then another subtest's new timer wheel at
// their address). So the replay runs with the collector off (collectorOff).
func (d *driver) verify(f *engine.Finding) {
	if d.pkgState != nil && d.pkgState.changed() != "" {
		// Describing changed package state (re-running in this process):
		// a replay would not start where the finding's exploration did.
		if f.AfterGC {
			f.Unreproduced = "its schedule could not be replayed from the start of the test to confirm it"
		}
		return
	}
	if f.AfterGC {
		defer collectorOff()()
	}
	again := false // seen again, but only after a collection
	g, gd, why := d.follow(f.Blocks, true, func(g *engine.Finding) int {
		if g.Key != f.Key {
			return matchNone
		}
		if f.AfterGC && g.AfterGC {
			again = true
			return matchNone
		}
		return matchExact
	})
	switch {
	case g != nil:
		if d.cfg.Timelines {
			f.Timeline = d.r.Outcome(gd, g)
		}
	case gd != nil && gd.Diverged() != "":
		f.Unreproduced = "replaying its schedule diverged: " + gd.Diverged()
	case again:
		f.Unreproduced = "its schedule, followed to its end, led to it again only after another collection"
	case why == engine.EndBound:
		f.Unreproduced = fmt.Sprintf("describing the test's findings took %v: its schedule was not followed to its end", describeFor)
	default:
		f.Unreproduced = "its schedule, followed to its end, did not lead to it again"
	}
}

// collectorOff completes a collection, then turns the collector off until
// restore is called, so that no object is freed and no address handed to
// a new object meanwhile; within a bound on memory (a gigabyte more than
// the process holds now), past which the collector runs again, and a race
// it then shows stays unconfirmed.
func collectorOff() (restore func()) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(limit, int64(ms.Sys)+1<<30))
	pct := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}

// describeOne replays f's path with tracing on and fills in its blocks and
// the positions of its goroutines.
func (d *driver) describeOne(f *engine.Finding) bool {
	r, blocks := d.trace(f.Path)
	if r == nil {
		return false
	}
	pos := r.Positions()
	for i := range f.Goroutines {
		g := &f.Goroutines[i]
		if g.Pos == "" {
			g.Pos = pos[g.ID]
		}
	}
	if f.Pos == "" && len(f.Goroutines) > 0 {
		f.Pos = f.Goroutines[0].Pos
	}
	f.Src = srcpos.SourceAt(f.Pos)
	f.Blocks = blocks
	return true
}

// trace replays path with tracing on and returns the execution and the
// path's blocks, anchored; nil if the path did not replay.
func (d *driver) trace(path []decision) (*engine.Execution, []result.Block) {
	cfg := *d.cfg
	cfg.Trace = true
	// MaxSteps stays: a goroutine the bound stopped while the path was
	// explored must stop at the same step when it is replayed.
	r := &d.r
	r.Reset(d.strat, nil, d.known, &d.stats, &cfg, d.name, d.body, path)
	r.TraceOnly()
	if why := r.Execute(d.tick); why != engine.EndReplay {
		return nil, nil
	}
	blocks := make([]result.Block, len(path))
	for i, s := range path {
		b := r.StepAt(i)
		b.Goroutine, b.Thread, b.End, b.Choices, b.Mid = r.ThreadID(s.Thread), s.Thread, s.End, s.Choices, s.Mid
		blocks[i] = b
	}
	return r, blocks
}

// mergePath joins consecutive blocks of the same goroutine: the explorer ends
// a block at every lock exit when another goroutine could run, even if the
// same one goes on, but for replay and reports that is one block.
func mergePath(p []decision) []decision {
	var out []decision
	for _, s := range p {
		if n := len(out); n > 0 && out[n-1].Thread == s.Thread && !out[n-1].Tick {
			last := &out[n-1]
			last.End, last.Mid, last.Tick = s.End, s.Mid, s.Tick
			last.Choices = append(append([]int32(nil), last.Choices...), s.Choices...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// publicFindings are the results of fs.
func publicFindings(fs []*engine.Finding) []*result.Finding {
	out := make([]*result.Finding, len(fs))
	for i, f := range fs {
		f.Finding.Key = f.Key
		out[i] = &f.Finding
	}
	return out
}

// waitsForProgress reports whether a finding of kind k says that some
// goroutine never moved again: only a goroutine xbtest runs can be what it
// waited for.
func waitsForProgress(k result.Kind) bool {
	return k == result.Deadlock || k == result.Leak || k == result.NonTermination
}

// The warning about a goroutine held while the test ran (collect) starts
// with these, around where the goroutine was started.
const (
	heldStarted = "the goroutine started at "
	heldBefore  = " before the test (e.g. by package initialisation) "
)

// oneHoldEach keeps the first warning about each goroutine held while the
// test ran: processes of a fork tree each hold it afresh (a forked child
// runs it again from where the fork found it), perhaps at another hook.
func oneHoldEach(warnings []string) []string {
	seen := map[string]bool{}
	out := warnings[:0:0]
	for _, w := range warnings {
		if rest, ok := strings.CutPrefix(w, heldStarted); ok {
			site, _, _ := strings.Cut(rest, heldBefore)
			if seen[site] {
				continue
			}
			seen[site] = true
		}
		out = append(out, w)
	}
	return out
}
