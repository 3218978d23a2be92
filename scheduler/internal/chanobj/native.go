package chanobj

import (
	"reflect"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// Channels made by code xbtest does not control (the Done channel of a
// context a library derived from one of the test's, a library's own
// channel) have no model: an operation on one is tried without blocking,
// and otherwise waits as one of the engine's native waiters
// (engine.G.ParkNative), which the engine tries again at every scheduling
// point and tick, and waits for for real when nothing else can happen (the
// engine's native.go says how).

// recvNative is a receive from a channel xbtest does not control.
func recvNative[T any](t *engine.G, ch <-chan T) (T, bool) {
	t.DataAccess(chanPtr(ch), 1, true)
	if v, ok, got := tryRecv(ch); got {
		t.Races().Observe(t.Index(), chanPtr(ch), races.RoleAnySend)
		t.EndBlock()
		return v, ok
	}
	var v T
	var ok bool
	t.ParkNative([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)}}, func(_ int, rv reflect.Value, rok bool) {
		if ok = rok; ok {
			v = rv.Interface().(T)
		}
	}, nil, "chan receive"+engine.NotControlled)
	return v, ok
}

// sendNative is a send on a channel xbtest does not control.
func sendNative[T any](t *engine.G, ch chan<- T, v T) {
	t.DataAccess(chanPtr(ch), 1, true)
	if trySend(ch, v) {
		t.Races().Publish(t.Index(), chanPtr(ch), races.RoleAnySend)
		t.EndBlock()
		return
	}
	t.ParkNative([]reflect.SelectCase{{Dir: reflect.SelectSend, Chan: reflect.ValueOf(ch), Send: reflect.ValueOf(&v).Elem()}}, func(int, reflect.Value, bool) {}, nil, "chan send"+engine.NotControlled)
}
