package checkpoint

import "sync/atomic"

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
	}
}
