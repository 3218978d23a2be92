package syncobj

import (
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// Once is a drop-in replacement for sync.Once, built like Go's: a done flag
// read on the fast path and a mutex around the first call.
//
// The flag is program state like any other: a package-level Once that an
// execution completes stays done, as in go test, where a test's set-up
// behind a Once runs once per process (and so do the registrations it
// makes). The fingerprint of package state sees it change (it is an
// atomic), so the executions after it start from a copy of the state before
// it (fork checkpoints) rather than from a state the program never starts in.
//
// Like sync.Once (and of its size) it is a done flag and a mutex; outside
// any execution the mutex is the native one.
type Once struct {
	done atomic.Uint32
	m    Mutex
}

// Do calls f if and only if Do is being called for the first time for this
// Once. Its completion (unlocking the internal mutex) ends an atomic block.
func (o *Once) Do(f func()) {
	g := engine.Enter()
	if g == nil {
		if o.done.Load() != 0 {
			return
		}
		o.m.native.Lock()
		defer o.m.native.Unlock()
		if o.done.Load() == 0 {
			defer o.done.Store(1)
			f()
		}
		return
	}
	g.OpPoint()
	g.Event()
	g.DataAccess(unsafe.Pointer(&o.done), 4, false)
	if o.done.Load() != 0 {
		g.Races().Observe(g.Index(), unsafe.Pointer(o), races.RoleObject)
		return
	}
	// Whoever ran f, its effects happen before Do returns. (The deferred
	// calls run on g, in its execution, unless that one is over.)
	defer func() {
		if engine.Enter() == g {
			g.Races().Observe(g.Index(), unsafe.Pointer(o), races.RoleObject)
		}
	}()
	o.m.Lock()
	defer o.m.Unlock()
	if o.done.Load() == 0 {
		defer func() {
			if engine.Enter() == g {
				g.Event()
				g.DataAccess(unsafe.Pointer(&o.done), 4, true)
				g.Races().Publish(g.Index(), unsafe.Pointer(o), races.RoleObject)
				o.done.Store(1)
				if !g.MadeByBody(unsafe.Pointer(o)) {
					// A Once the body did not make (a package's, or
					// one OnceValue keeps): the next execution would
					// not run its function. The fingerprint may not
					// reach it (a closure holds it), so say so.
					g.ChangedState("a sync.Once made before the test body ran was completed by it")
				}
			}
		}()
		f()
	}
}

// OnceFunc returns a function that invokes f only once.
func OnceFunc(f func()) func() {
	var once Once
	var p any
	return func() {
		once.Do(func() {
			defer func() {
				if p = recover(); p != nil {
					panic(p)
				}
			}()
			f()
		})
		if p != nil {
			panic(p)
		}
	}
}

// OnceValue returns a function that invokes f only once and returns its value.
func OnceValue[T any](f func() T) func() T {
	var once Once
	var v T
	var p any
	return func() T {
		once.Do(func() {
			defer func() {
				if p = recover(); p != nil {
					panic(p)
				}
			}()
			v = f()
		})
		if p != nil {
			panic(p)
		}
		return v
	}
}

// OnceValues returns a function that invokes f only once and returns its values.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var once Once
	var v1 T1
	var v2 T2
	var p any
	return func() (T1, T2) {
		once.Do(func() {
			defer func() {
				if p = recover(); p != nil {
					panic(p)
				}
			}()
			v1, v2 = f()
		})
		if p != nil {
			panic(p)
		}
		return v1, v2
	}
}
