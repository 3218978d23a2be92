package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// Stopping an exploration early: its -timeout elapsed, or the user pressed
// Ctrl-C. The request is made in the test binary's own process, and must
// reach whichever process of the fork tree runs executions: the flag lives
// in the page the tree shares (when forking is set up) as well as in this
// process.

// Stop says why exploration was asked to stop (0: it was not).
type Stop int32

const (
	NoStop        Stop = iota
	StopTime           // the test's -timeout elapsed
	StopInterrupt      // the xbtest command was interrupted
)

func (s Stop) String() string {
	switch s {
	case StopTime:
		return "time"
	case StopInterrupt:
		return "interrupted"
	}
	return ""
}

var stopLocal atomic.Int32

// RequestStop asks every process exploring the current test to stop. The
// first reason given stays.
func RequestStop(why Stop) {
	stopLocal.CompareAndSwap(0, int32(why))
	if s := shm; s != nil {
		s.stop.CompareAndSwap(0, int32(why))
	}
}

// StopRequested returns why exploration was asked to stop, or NoStop. It
// costs an atomic load or two: the scheduler asks at every event.
func StopRequested() Stop {
	if v := stopLocal.Load(); v != 0 {
		return Stop(v)
	}
	if s := shm; s != nil {
		return Stop(s.stop.Load())
	}
	return NoStop
}

// ClearStop withdraws a request, before the next test's exploration.
func ClearStop() {
	stopLocal.Store(0)
	if s := shm; s != nil {
		s.stop.Store(0)
		s.final.Store(0)
	}
}

// Stopping a fork tree quickly. A deep exploration keeps a chain of
// processes, one snapshot per branch point, each waiting for its child;
// normally each hands the exploration state up to its parent when its
// subtree is done. After a stop the only state that matters is the running
// process's: it inherited every finding its ancestors merged before they
// forked it, and added its own. So that process writes its state to a file
// all processes know (finalPath, named by the root before the first fork)
// and leaves; the snapshots between it and the zygote, seeing the file
// written, leave at once; the zygote takes the state from the file and
// describes the findings as usual. Without this, a chain of hundreds of
// snapshots takes seconds to unwind.

// finalPath is the file of the fast stop, named in the root per exploration.
var finalPath string

// nameFinal names the file of the fast stop of an exploration about to
// fork (in the root).
func nameFinal() {
	dir := os.Getenv("XBTEST_TMPDIR")
	if dir == "" {
		dir = os.TempDir()
	}
	finalSeq++
	finalPath = filepath.Join(dir, fmt.Sprintf("xbtest-final-%d-%d", os.Getpid(), finalSeq))
	os.Remove(finalPath)
}

var finalSeq int

// leaveStopped is the leave of an exploring process: after a stop, the
// first to leave writes its state to finalPath instead of handing it to
// its parent. The stop is read before t saves its state, never after: a
// state saved after a stop says exploration is over and is whole (Target's
// Save), so any ancestor can take it, while one saved before is relative
// to this process's parent and only the parent can. The request comes from
// another process at any instant (the root's -timeout timer, Ctrl-C), so a
// state saved first and then written here because the stop had arrived
// meanwhile reached the zygote relative to a stack it does not have ("a
// forked child kept 26 branches of 0").
func leaveStopped(t Target) {
	if s := shm; s != nil && finalPath != "" && StopRequested() != NoStop && s.final.CompareAndSwap(0, 1) {
		state := t.Save()
		if os.WriteFile(finalPath, state, 0o644) == nil {
			s.final.Store(2)
			syscall.Exit(0)
		}
		s.final.Store(0)
		leave(state)
	}
	leave(t.Save())
}

// finalState returns the state a stopped process wrote, if one did.
func finalState() ([]byte, bool) {
	if s := shm; s == nil || s.final.Load() != 2 || finalPath == "" {
		return nil, false
	}
	b, err := os.ReadFile(finalPath)
	if err != nil {
		return nil, false
	}
	return b, true
}

// dropFinal removes the file of the fast stop (in the root, after the
// exploration).
func dropFinal() {
	if finalPath != "" {
		os.Remove(finalPath)
	}
}

// StopAfter requests a stop for why once d has passed, unless cancelled
// first. After cancel returns no request from this call can land any more:
// a timer callback already running is waited for, so a late request
// cannot stop the next test's exploration (time.Timer.Stop does not wait
// for a callback that has started).
func StopAfter(d time.Duration, why Stop) (cancel func()) {
	return afterUnlessCancelled(d, func() { RequestStop(why) })
}

// afterUnlessCancelled runs f after d unless cancelled; cancel waits for a
// run of f that has begun. The state is one atomic word rather than a
// mutex: a forked child inherits memory, not the timer's thread.
func afterUnlessCancelled(d time.Duration, f func()) (cancel func()) {
	const (
		armed = iota
		firing
		cancelled
	)
	var state atomic.Int32
	tm := time.AfterFunc(d, func() {
		if state.CompareAndSwap(armed, firing) {
			f()
			state.Store(armed)
		}
	})
	return func() {
		tm.Stop()
		for !state.CompareAndSwap(armed, cancelled) {
			if state.Load() == cancelled {
				return
			}
			runtime.Gosched()
		}
	}
}
