package scheduler

import (
	"sync"
	"unsafe"
)

// Once is a drop-in replacement for sync.Once, built like Go's: a done flag
// read on the fast path and a mutex around the first call.
type Once struct {
	doneEpoch uint64 // the execution in which f completed
	native    bool   // f completed outside any execution
	m         Mutex
	nat       sync.Once
}

func (o *Once) done(r *run) bool { return o.native || o.doneEpoch == r.epoch }

// Do calls f if and only if Do is being called for the first time for this
// Once. Its completion (unlocking the internal mutex) ends an atomic block.
func (o *Once) Do(f func()) {
	r, t := enter()
	if r == nil {
		o.nat.Do(func() {
			defer func() { o.native = true }()
			f()
		})
		return
	}
	r.event(t)
	r.dataAccess(unsafe.Pointer(&o.doneEpoch), 8, false)
	if o.done(r) {
		r.raceObserve(t, unsafe.Pointer(o), roleObject)
		return
	}
	// Whoever ran f, its effects happen before Do returns.
	defer func() {
		if r2, t2 := enter(); r2 == r {
			r.raceObserve(t2, unsafe.Pointer(o), roleObject)
		}
	}()
	o.m.Lock()
	defer o.m.Unlock()
	if !o.done(r) {
		defer func() {
			if r2, t2 := enter(); r2 == r {
				r.event(t2)
				r.dataAccess(unsafe.Pointer(&o.doneEpoch), 8, true)
				r.racePublish(t2, unsafe.Pointer(o), roleObject)
				o.doneEpoch = r.epoch
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
