package scheduler

import (
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
)

// Explore runs body once per schedule the configured algorithm explores and
// returns what it found. name is the test's name in reports.
func Explore(name string, body func(*T), cfg Config) *Result {
	if cfg.Backer == nil {
		cfg.Backer = checkpoint.Rerun{}
	}
	res := &Result{Test: name, Algorithm: cfg.Algorithm, SyncDeps: cfg.SyncDeps, Backer: cfg.Backer.Name(), Complete: true}
	if m := tainted.Load(); m != nil {
		res.Internal = "not explored, an earlier test left a goroutine xbtest could not stop: " + *m
		res.Complete = false
		return res
	}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res.Internal = fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())
			res.Complete = false
			hot.Store(false)
			concurrent.Store(nil)
			active.Store(nil)
		}
	}()
	d := &driver{ex: newExplorer(&cfg), cfg: &cfg, name: name, body: body, res: res, seen: map[string]*Finding{}, warned: map[string]bool{}}
	if cfg.Watchdog > 0 {
		d.tick = time.NewTicker(min(cfg.Watchdog/4, time.Second))
		defer d.tick.Stop()
	}
	lastProgress, iter := start, 0
	for {
		cfg.Backer.Back(d, d.ex.start.prefixLen())
		if d.stop {
			break
		}
		if d.ex.restart {
			d.restart()
			continue
		}
		if (d.last != endAbort || d.ex.abandoned) && !d.ex.nextStart() {
			break
		}
		d.ex.abandoned = false
		if cfg.MaxSchedules > 0 && d.ex.stats.schedules >= cfg.MaxSchedules {
			res.Complete, res.Bound = false, "schedules"
			break
		}
		if iter++; iter&7 != 0 {
			continue // reading the clock costs a few percent of a small execution
		}
		now := time.Now()
		if cfg.Timeout > 0 && now.Sub(start) > cfg.Timeout {
			res.Complete, res.Bound = false, "time"
			break
		}
		if cfg.Progress != nil && now.Sub(lastProgress) >= time.Second {
			lastProgress = now
			cfg.Progress(d.ex.stats.schedules, len(res.Findings))
		}
	}
	res.Schedules = d.ex.stats.schedules
	res.Aborted = d.ex.stats.aborted
	res.Elapsed = time.Since(start)
	d.describe()
	return res
}

// restart starts the exploration over, keeping what it learnt about
// TryLock: findings so far were found on schedules of the old tree and are
// found again.
func (d *driver) restart() {
	old := d.ex
	d.ex = newExplorer(d.cfg)
	d.ex.tried, d.ex.triedAll = old.tried, old.triedAll
	d.res.Findings = nil
	clear(d.seen)
	d.restarts++
}

// driver runs the executions of one exploration; it is the checkpoint
// package's Target.
type driver struct {
	ex       *explorer
	cfg      *Config
	name     string
	body     func(*T)
	res      *Result
	seen     map[string]*Finding
	warned   map[string]bool
	last     endReason
	stop     bool
	restarts int
	r        run          // reused by every execution
	tick     *time.Ticker // the watchdog's clock
}

// RunFrom implements checkpoint.Target: one execution that replays the
// first n decisions of the current path, then explores.
func (d *driver) RunFrom(n int) {
	prefix := d.ex.replayPrefix()
	if len(prefix) != n {
		d.res.Internal = "internal error: backer asked for another depth than the explorer's branch point"
		d.stop = true
		return
	}
	r := &d.r
	r.reset(d.ex, d.cfg, d.name, d.body, prefix)
	r.number = d.ex.stats.schedules + 1
	d.last = d.execute(r)
	d.collect(r)
}

// execute runs r to its end and tears it down.
func (d *driver) execute(r *run) endReason {
	active.Store(r)
	defer func() {
		hot.Store(false)
		concurrent.Store(nil)
		active.Store(nil)
	}()
	t0 := r.newThread(nil, nil)
	r.raceStart(nil, t0)
	t0.fn = func() { r.runBody(t0) }
	r.cur = t0
	if len(r.replay) == 0 {
		r.exploring = true
		if first := r.ex.begin(r); first != t0 {
			r.internal = "internal error: the first block is not the test goroutine's"
			return endInternal
		}
	}
	r.resume(t0)
	if !r.wait(d.tick) {
		r.abandon(r.cur, "has not reached a scheduling point")
		r.dead.Store(true)
		return endInternal
	}
	if !r.teardown() {
		return endInternal
	}
	return r.why
}

// runBody is the test goroutine's function.
func (r *run) runBody(t0 *thread) {
	tt := newT(r, r.name, nil)
	r.t0, t0.tt = tt, tt
	defer tt.runCleanups()
	r.body(tt)
}

// collect merges an execution's findings into the result.
func (d *driver) collect(r *run) {
	inRun := map[string]bool{}
	for _, f := range r.findings {
		if inRun[f.key] {
			continue
		}
		inRun[f.key] = true
		if g := d.seen[f.key]; g != nil {
			g.Count++
			continue
		}
		f.Count, f.Schedule = 1, r.number
		d.seen[f.key] = f
		d.res.Findings = append(d.res.Findings, f)
		if d.cfg.Stop {
			d.stop = true
			d.res.Complete, d.res.Bound = false, "stop"
		}
	}
	for _, w := range r.warnings {
		if !d.warned[w] {
			d.warned[w] = true
			d.res.Warnings = append(d.res.Warnings, w)
			d.res.Complete = false
			if d.res.Bound == "" {
				d.res.Bound = "steps"
			}
		}
	}
	if r.skipped {
		d.res.Skipped = true
		d.stop = true
	}
	if r.internal == "" {
		if m := tainted.Load(); m != nil {
			r.internal = *m
		}
	}
	if r.internal != "" {
		d.res.Internal = r.internal
		d.res.Complete = false
		d.stop = true
	}
}

// describe replays the first schedule of each finding with tracing on, to
// give every goroutine of the report its position and the schedule its steps.
func (d *driver) describe() {
	for _, f := range d.res.Findings {
		if d.res.Internal != "" || tainted.Load() != nil {
			return
		}
		cfg := *d.cfg
		cfg.Trace = true
		cfg.MaxSteps = 0
		r := &d.r
		r.reset(d.ex, &cfg, d.name, d.body, f.path)
		r.traceOnly = true
		r.stepPos = make([]string, len(f.path))
		if why := d.execute(r); why != endReplay {
			continue
		}
		pos := map[string]string{}
		for _, t := range r.threads {
			pos[t.id()] = firstUserPos(t.pcs)
		}
		for i := range f.Goroutines {
			g := &f.Goroutines[i]
			if g.Pos == "" {
				g.Pos = pos[g.ID]
			}
		}
		if f.Pos == "" && len(f.Goroutines) > 0 {
			f.Pos = f.Goroutines[0].Pos
		}
		for i, s := range f.path {
			f.Blocks = append(f.Blocks, Block{Goroutine: r.threads[s.thread].id(), Thread: s.thread, End: s.end, Choices: s.choices, Pos: r.stepPos[i]})
		}
	}
	sort.SliceStable(d.res.Findings, func(i, j int) bool { return d.res.Findings[i].Schedule < d.res.Findings[j].Schedule })
}
