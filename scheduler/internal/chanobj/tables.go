package chanobj

import (
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/maporder"
)

// What this package knows of an execution lives in its tables, which the
// execution keeps in this package's slot (engine.ObjectTables), forgotten
// with the execution: the models of the channels, keyed by the address of
// the runtime's channel, and whether the context package is running on a
// context's cancellation (context.go).

// tables are the per-execution state of this package.
type tables struct {
	chans map[unsafe.Pointer]*chanState
	// handedOut: channels instrumented code made and then handed to code
	// that sends on them unseen (signal.Notify): they have no model
	// (HandOut).
	handedOut map[unsafe.Pointer]bool
	// quiet > 0: the context package runs on a vctx's cancellation, whose
	// Err and Cause are no scheduling points (vctx.runForeign).
	quiet int
}

func newTables() engine.ObjectTables {
	return &tables{chans: map[unsafe.Pointer]*chanState{}, handedOut: map[unsafe.Pointer]bool{}}
}

func (s *tables) Reset() {
	clear(s.chans)
	clear(s.handedOut)
	s.quiet = 0
}

func init() {
	maporder.ChanRank = func(p unsafe.Pointer) (int64, bool) {
		t := engine.Enter()
		if t == nil {
			return 0, false
		}
		m := model(t, p)
		if m == nil {
			return 0, false
		}
		return int64(m.id), true
	}
}

// slot is where executions keep this package's tables.
var slot = engine.NewSlot()

func tablesOf(t *engine.G) *tables { return t.Objects(slot, newTables).(*tables) }

func tablesIn(x engine.Exec) *tables { return x.Objects(slot, newTables).(*tables) }

// madeOutside holds channels instrumented code made outside any execution
// (package initialisation); executions adopt them.
var madeOutside sync.Map

// model returns the model of the channel at p, or nil for a channel made by
// code xbtest does not control.
func model(t *engine.G, p unsafe.Pointer) *chanState {
	s := tablesOf(t)
	if m := s.chans[p]; m != nil {
		return m
	}
	if s.handedOut[p] {
		return nil
	}
	if _, ok := madeOutside.Load(p); ok {
		m := &chanState{id: t.NewObject(), addr: p}
		s.chans[p] = m
		return m
	}
	return nil
}

// HandOut gives up the model of ch, which instrumented code made and now
// hands to code xbtest does not control that sends on it behind the
// scheduler's back (os/signal's Notify: the runtime's signal loop sends
// without blocking, whenever a signal comes). A value sent so lands in the
// real channel while a receiver may already be parked on the model, which
// no one would wake: the receiver would wait for ever, a false deadlock.
// Without a model, operations on ch are tried without blocking and
// otherwise wait as native waiters (native.go), which the engine tries
// again at every scheduling point and waits for for real when nothing else
// can happen. A channel some goroutine is parked on keeps its model.
func HandOut[T any](ch chan<- T) {
	t := engine.Enter()
	if t == nil || ch == nil {
		return
	}
	s := tablesOf(t)
	p := chanPtr(ch)
	if m := s.chans[p]; m != nil {
		if hasLive(m.recvq) || hasLive(m.sendq) || m.timer != nil {
			return
		}
		delete(s.chans, p)
	}
	s.handedOut[p] = true
}
