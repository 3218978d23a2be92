// Package checkpoint decides how exploration backs up to an earlier point of
// the schedule tree.
//
// The ExitBlock explorer (package scheduler) keeps its path as a list of
// decisions and its pending branches on a stack, each needing the program
// state after the first n decisions of the path. The thesis restored
// checkpoints (3.3.1); a Backer provides that state, and the explorer does
// not care how:
//
//   - Rerun re-executes the test body in this process and replays the
//     decisions. Cheap (microseconds), but sound only when the body leaves
//     no state behind: a write to a package-level variable survives into the
//     next execution.
//   - Fork keeps snapshots as processes. A zygote, forked from the pristine
//     process just before the test body, forks a child for each execution; at a
//     branch point that is expensive to reach a process stays behind as a
//     snapshot: it forks one child per pending branch below it, each of
//     which continues from that point instead of from the start.
//   - Auto re-runs in the test binary while the test's package state is
//     unchanged after every execution and replaying prefixes costs less
//     than forking (measured: a fork of this process against the time an
//     execution took to reach the point the next one starts from); a
//     zygote forked beforehand waits, and takes the exploration over (by
//     fork, with snapshots) once either condition fails.
//
// Exploration state (the path, the new branches, findings, counters) flows
// from a child to its parent over a pipe when the child can go no further;
// the parent merges it and forks the next child. See fork.go.
package checkpoint

import (
	"fmt"
	"runtime"
	"time"
)

// Target is the explorer as a Backer sees it. Depths are lengths of the
// explorer's current path: the program state after that many decisions.
type Target interface {
	// Next returns the depth at which the next execution leaves the
	// current path (the depth whose program state it needs), or -1 when
	// exploration is over.
	Next() int
	// RunFrom runs the next execution in this process from the start of
	// the test body, replaying the current path to depth Next(), and then
	// advances the explorer to the following start.
	RunFrom(n int)
	// Clean reports whether the program state of this process is as it
	// was before the first execution, so that re-running the body is
	// sound; if not, why (e.g. the package-level variable that changed).
	Clean() (ok bool, why string)
	// Save returns the exploration state a child hands back to its parent;
	// Load merges it into the parent's (which is the state the child was
	// forked with: only what the child changed travels). Once a stop has
	// been requested (StopRequested) the state Save returns must be whole,
	// for any ancestor to load: after a stop the first process to leave
	// hands its state straight to the zygote (stop.go).
	Save() []byte
	Load(state []byte) error
	// Describe describes the findings (replays each one's schedule with
	// tracing, through Isolate). Explore calls it when exploration is over,
	// in a process whose program state is the initial one.
	Describe()
	// Forked is called first thing in a new child process: what the
	// child saves is relative to the state it has at this point.
	Forked()
	// Alive tells the process's own watchdog that the execution it holds
	// as a snapshot is not stuck: its children make progress.
	Alive()
	// Fail records an error of the checkpointing itself (a child that
	// hung or crashed): exploration stops, incomplete.
	Fail(msg string)
	// Note records how the test was explored, for -v.
	Note(msg string)
}

// Backer brings the program under test back to points of the current path.
type Backer interface {
	// Name is the strategy's name as the -checkpoint flag spells it.
	Name() string
	// Explore runs executions until t.Next() < 0, then t.Describe().
	Explore(t Target)
	// AtBranchPoint is called by the running execution with the program
	// state after d decisions, elapsed after this process started (or
	// resumed) it. A Backer that takes a snapshot there returns only in
	// child processes (Continue or Redirect); the snapshot itself serves
	// every branch at depth >= d and then leaves, never returning.
	AtBranchPoint(t Target, d int, elapsed time.Duration) Resume
	// Isolate runs f on a copy of the program state before the first
	// execution (in this process if re-running is sound) and returns
	// what f returns.
	Isolate(t Target, f func() []byte) []byte
}

// Resume tells the execution how to go on after AtBranchPoint.
type Resume int

const (
	// Stay: no snapshot was taken; go on.
	Stay Resume = iota
	// Continue: this is the snapshot's first child; go on with the same
	// execution (restart its clock).
	Continue
	// Redirect: this is a later child of the snapshot; the explorer's
	// path and next start have changed: replay from depth d toward
	// t.Next().
	Redirect
)

// Rerun backs up by re-executing the test body from the beginning and
// replaying the recorded prefix of decisions. When an execution changes
// package state, the executions after it would start from another state
// than the first: Rerun then stops, and says so, rather than report
// results that may be wrong.
type Rerun struct{}

// Name implements Backer.
func (Rerun) Name() string { return "rerun" }

// Explore implements Backer. It runs with GOMAXPROCS=1, as the test
// binary does under auto: one controlled goroutine runs at a time, and with
// one P handing over to the next wakes no other thread. Measured with
// BenchmarkCheckpoint: a quarter faster without set-up, 3 to 4 times
// faster for a test that builds 1 to 8 MB before its goroutines start.
func (Rerun) Explore(t Target) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for n := t.Next(); n >= 0; n = t.Next() {
		t.RunFrom(n)
		if ok, why := t.Clean(); !ok {
			if t.Next() >= 0 {
				t.Fail(fmt.Sprintf("exploration stopped: %s, and re-running the test body (-checkpoint=rerun) would start the next schedules from that changed state, so their results could be wrong; use -checkpoint=auto or fork", why))
			}
			break
		}
	}
	t.Describe()
}

// AtBranchPoint implements Backer: Rerun takes no snapshots.
func (Rerun) AtBranchPoint(Target, int, time.Duration) Resume { return Stay }

// Isolate implements Backer.
func (Rerun) Isolate(_ Target, f func() []byte) []byte { return f() }

// inSyscall begins the hazard of a goroutine in a system call.
const inSyscall = "a goroutine xbtest does not control is in a system call in "
