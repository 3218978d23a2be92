package engine

import (
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/location"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/settings"
)

// What the driver (package scheduler/internal/driver) uses of the engine:
// an Execution runs one execution of a test body under a strategy and says
// how it ended and what it found; a Guide steers guided executions along a
// recorded schedule; Learnt and Stats are what an exploration keeps across
// its executions.

// decision is one step of a path (sched.Decision): the engine replays,
// records and reports paths in many places, which the alias keeps short.
type decision = sched.Decision

// Stats are an exploration's counts across its executions; the engine
// counts into them.
type Stats struct {
	Schedules int // paths explored to their end (the thesis's "paths")
	Aborted   int // paths cut short: an unavailable lock
}

// Execution runs the executions of one exploration, one at a time: Reset
// prepares the next, Execute runs it to its end, and the accessors say how
// it ended and what it found. The zero Execution is ready for Reset; one
// Execution is reused by every execution of an exploration, so that
// steady-state exploration allocates little.
type Execution struct{ r run }

// Reset prepares the next execution: s is the exploration's strategy, g
// the schedule a guided execution follows (nil when exploring), known what
// the exploration learnt about block boundaries, stats where it counts
// paths; the execution first replays the decisions of replay.
func (x *Execution) Reset(s sched.Strategy, g *Guide, known *Learnt, stats *Stats, cfg *Config, name string, body Body, replay []sched.Decision) {
	x.r.reset(s, g, known, stats, cfg, name, body, replay)
}

// SetNumber says which schedule of the exploration the execution explores
// (1-based), for its findings.
func (x *Execution) SetNumber(n int) { x.r.number = n }

// OfferSnapshots lets the execution offer its state at branch points to
// the backer (fork checkpoints), for target, the driver.
func (x *Execution) OfferSnapshots(target checkpoint.Target, on bool) {
	x.r.drv, x.r.started, x.r.snapshots = target, time.Now(), on
}

// TraceOnly makes the execution a replay for a report: it stops at the end
// of its prefix and records where and how each replayed block ended
// (StepAt).
func (x *Execution) TraceOnly() {
	x.r.traceOnly = true
	x.r.stepAt = make([]result.Block, len(x.r.replay))
}

// Execute runs the execution to its end and tears it down; tick, if not
// nil, is the watchdog's clock.
func (x *Execution) Execute(tick *time.Ticker) EndReason {
	r := &x.r
	active.Store(r)
	defer func() {
		hot.Store(false)
		concurrent.Store(nil)
		active.Store(nil)
	}()
	r.gcAtStart = gcCycles()
	r.heap.Refresh()
	t0 := r.newThread(nil, nil)
	r.race.Start(-1, t0.idx)
	t0.fn = func() { r.runBody() }
	r.cur = t0
	if len(r.replay) == 0 {
		r.exploring = true
		if first := r.strat.Begin(stratHost{r}); first != t0.idx {
			r.internal = "internal error: the first block is not the test goroutine's"
			return EndInternal
		}
	}
	r.resume(t0)
	if !r.wait(tick) {
		r.abandon(r.cur, "has not reached a scheduling point")
		r.dead.Store(true)
		return EndInternal
	}
	if !r.teardown() {
		return EndInternal
	}
	return r.why
}

// Why is how the execution ended.
func (x *Execution) Why() EndReason { return x.r.why }

// Bound is the bound or stop request that ended the execution (EndBound).
func (x *Execution) Bound() checkpoint.Stop { return x.r.bound }

// Explored reports whether the execution got past its replayed prefix
// without a guide: its path is one of the exploration's.
func (x *Execution) Explored() bool { return x.r.exploring && x.r.guide == nil }

// Number is the schedule the execution explored (SetNumber).
func (x *Execution) Number() int { return x.r.number }

// Findings are the execution's findings, in the order found.
func (x *Execution) Findings() []*Finding { return x.r.findings }

// Notes are what the result's Notes should say about the execution.
func (x *Execution) Notes() []string { return x.r.notes }

// Warnings are the execution's warnings (a bound it hit).
func (x *Execution) Warnings() []string { return x.r.warnings }

// GaveWay is how many goroutines the fairness bound made give way.
func (x *Execution) GaveWay() int { return x.r.gaveWay }

// Skipped reports whether the test skipped itself.
func (x *Execution) Skipped() bool { return x.r.skipped }

// Internal is an error of xbtest that ended the execution ("" if none).
func (x *Execution) Internal() string { return x.r.internal }

// Changed is package state the execution changed that the driver's
// fingerprint may not see ("" if none).
func (x *Execution) Changed() string { return x.r.changed }

// Restart reports whether the exploration must start over, knowing more
// (a TryLock or an RWMutex used both ways was discovered).
func (x *Execution) Restart() bool { return x.r.restart }

// Alive counts as progress of the execution for the watchdog (a forked
// child took it over).
func (x *Execution) Alive() { x.r.resumed.Add(1) }

// StepAt is where and how replayed block i ended (TraceOnly).
func (x *Execution) StepAt(i int) result.Block { return x.r.stepAt[i] }

// ThreadID is the goroutine ID (T0, T0.1...) of thread i.
func (x *Execution) ThreadID(i int32) string { return x.r.threads[i].id() }

// Positions are the positions in the user's code ("file:line") at which
// the execution's goroutines were last, by goroutine ID (trace mode).
func (x *Execution) Positions() map[string]string {
	pos := map[string]string{}
	for _, t := range x.r.threads {
		if file, line, _ := srcpos.UserFrame(t.pcs); file != "" {
			pos[t.id()] = srcpos.Short(file, line)
			srcpos.SourceLine(file, line)
		}
	}
	return pos
}

// Outcome is what a guided execution g (the last one the driver followed,
// in x) showed, with f the finding it led to (nil: none).
func (x *Execution) Outcome(g *Guide, f *Finding) *result.ReplayOutcome {
	i := -1
	if f != nil {
		for j, ff := range x.r.findings {
			if ff == f {
				i = j
			}
		}
	}
	return g.Outcome(x.r.deadlocks.FinalStates(), f != nil, i)
}

// Save encodes what l holds, for a forked process's hand-over.
func (l *Learnt) Save(e *sched.Enc) {
	for _, set := range []struct {
		all bool
		m   map[sched.CanonAccess]bool
	}{{l.triedAll, l.tried}, {l.mixedAll, l.mixed}} {
		e.Bool(set.all)
		e.Uint(uint64(len(set.m)))
		for a := range set.m {
			e.Access(&a)
		}
	}
	l.flush.Save(e)
}

// Load decodes into l what Save encoded (l is new).
func (l *Learnt) Load(x *sched.Dec) {
	for _, set := range []struct {
		all *bool
		m   map[sched.CanonAccess]bool
	}{{&l.triedAll, l.tried}, {&l.mixedAll, l.mixed}} {
		*set.all = x.Bool()
		for n := x.N(); n > 0 && x.Err == nil; n-- {
			set.m[x.Access()] = true
		}
	}
	l.flush.Load(x)
}

// Tainted says why no further exploration is safe in this process (a
// goroutine of an execution could not be stopped); "" if it is.
func Tainted() string {
	if m := tainted.Load(); m != nil {
		return *m
	}
	return ""
}

// Detach leaves this process with no execution under way, after a panic
// of the driver or the engine: the hooks behave as the operations they
// replace.
func Detach() {
	hot.Store(false)
	concurrent.Store(nil)
	active.Store(nil)
}

// WatchdogTick is how often the driver looks at a running execution.
func WatchdogTick(watchdog time.Duration) time.Duration { return watchdogTick(watchdog) }

// CheckRewrite returns an error if some package of this binary was
// rewritten for another memory model than m (RewrittenFor).
func CheckRewrite(m settings.Memory) error { return checkRewrite(m) }

// PackageVar is a registered package-level variable of an instrumented
// package (package location).
type PackageVar = location.PackageVar

// PackageVars are the registered package-level variables whose types are
// known: the program state that survives from one execution into the next
// (the driver's fingerprint of it decides whether re-running is sound).
func PackageVars() []PackageVar { return location.PackageVars() }

// DropFindings forgets the execution's findings: another shard counts its
// path (the driver's partition.go).
func (x *Execution) DropFindings() { x.r.findings = x.r.findings[:0] }

// Size is how much l holds: it only grows as the exploration learns.
func (l *Learnt) Size() int {
	n := len(l.tried) + len(l.mixed) + l.flush.Words()
	for _, b := range []bool{l.triedAll, l.mixedAll, l.flush.Unknown()} {
		if b {
			n++
		}
	}
	return n
}

// Counts are how many locks some TryLock tries, RWMutexes locked both ways
// and racy words (under a weak memory model) l holds.
func (l *Learnt) Counts() (tried, mixed, racy int) {
	return len(l.tried), len(l.mixed), l.flush.Words()
}

// A Cutter is a strategy that may end the path under way where it crosses
// into a part of the schedule tree another process explores (package
// shard's wrapper, under -shard): Cut reports that it did. Such a path is
// no schedule of this exploration's, and the goroutines it leaves runnable
// are no deadlock. The engine knows no strategy but by such interfaces.
type Cutter interface{ Cut() bool }
