package scheduler

import (
	"sync"

	"github.com/xbtest/xbtest/scheduler/internal/syncobj"
)

// The drop-in types of package sync.

// Mutex is a drop-in replacement for sync.Mutex, of the same size.
type Mutex struct{ e syncobj.Mutex }

// Lock locks m.
func (m *Mutex) Lock() { m.e.Lock() }

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool { return m.e.TryLock() }

// Unlock unlocks m; as in Go, it may be called by another goroutine than
// the one that locked it.
func (m *Mutex) Unlock() { m.e.Unlock() }

// RWMutex is a drop-in replacement for sync.RWMutex. Like Go's, it prefers
// writers: once a writer waits for the readers to leave, new readers wait.
type RWMutex struct{ e syncobj.RWMutex }

// Lock locks rw for writing.
func (rw *RWMutex) Lock() { rw.e.Lock() }

// TryLock tries to lock rw for writing.
func (rw *RWMutex) TryLock() bool { return rw.e.TryLock() }

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() { rw.e.Unlock() }

// RLock locks rw for reading.
func (rw *RWMutex) RLock() { rw.e.RLock() }

// TryRLock tries to lock rw for reading.
func (rw *RWMutex) TryRLock() bool { return rw.e.TryRLock() }

// RUnlock undoes a single RLock call.
func (rw *RWMutex) RUnlock() { rw.e.RUnlock() }

// RLocker returns a Locker that locks rw for reading.
func (rw *RWMutex) RLocker() sync.Locker { return rw.e.RLocker() }

// Cond is a drop-in replacement for sync.Cond, of the same size. L comes
// first, as in sync.Cond; its state during an execution is in the
// execution's tables (package syncobj's tables.go).
type Cond = syncobj.Cond

// NewCond returns a new Cond with Locker l.
func NewCond(l sync.Locker) *Cond { return syncobj.NewCond(l) }

// WaitGroup is a drop-in replacement for sync.WaitGroup, of the same size;
// its state during an execution is in the execution's tables (package
// syncobj's tables.go).
type WaitGroup struct{ e syncobj.WaitGroup }

// Add adds delta to the counter; a negative delta is a release and ends an
// atomic block like a lock exit.
func (wg *WaitGroup) Add(delta int) { wg.e.Add(delta) }

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.e.Done() }

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() { wg.e.Wait() }

// Go calls f on a new goroutine and adds that task to the WaitGroup.
func (wg *WaitGroup) Go(f func()) { wg.e.Go(f) }

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
type Once struct{ e syncobj.Once }

// Do calls f if and only if Do is being called for the first time for this
// Once. Its completion (unlocking the internal mutex) ends an atomic block.
func (o *Once) Do(f func()) { o.e.Do(f) }

// OnceFunc returns a function that invokes f only once.
func OnceFunc(f func()) func() { return syncobj.OnceFunc(f) }

// OnceValue returns a function that invokes f only once and returns its value.
func OnceValue[T any](f func() T) func() T { return syncobj.OnceValue(f) }

// OnceValues returns a function that invokes f only once and returns its values.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) { return syncobj.OnceValues(f) }

// Map is a drop-in replacement for sync.Map. Every method is one atomic
// operation on the map (a read or a write of the whole map, then a block
// boundary). Range visits keys in insertion order, so that an execution can
// be replayed.
type Map struct{ e syncobj.Map }

// Load returns the value stored for key.
func (m *Map) Load(key any) (value any, ok bool) { return m.e.Load(key) }

// Store sets the value for key.
func (m *Map) Store(key, value any) { m.e.Store(key, value) }

// LoadOrStore returns the existing value for key if present; otherwise it
// stores and returns value.
func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	return m.e.LoadOrStore(key, value)
}

// LoadAndDelete deletes the value for key, returning the previous value.
func (m *Map) LoadAndDelete(key any) (value any, loaded bool) { return m.e.LoadAndDelete(key) }

// Delete deletes the value for key.
func (m *Map) Delete(key any) { m.e.Delete(key) }

// Swap stores value for key and returns the previous value.
func (m *Map) Swap(key, value any) (previous any, loaded bool) { return m.e.Swap(key, value) }

// CompareAndSwap swaps the value for key if it equals old.
func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	return m.e.CompareAndSwap(key, old, new)
}

// CompareAndDelete deletes the entry for key if its value equals old.
func (m *Map) CompareAndDelete(key, old any) (deleted bool) { return m.e.CompareAndDelete(key, old) }

// Range calls f for each key and value, in insertion order, until f returns
// false. As with sync.Map, f may modify the map.
func (m *Map) Range(f func(key, value any) bool) { m.e.Range(f) }

// Clear deletes all the entries.
func (m *Map) Clear() { m.e.Clear() }

// Pool is a drop-in replacement for sync.Pool, of its size, with New where
// sync.Pool has it. A Pool may drop its items at any time; this one keeps
// them, last in first out, within one execution and drops them between
// executions, so that executions are reproducible.
type Pool = syncobj.Pool

// A Cond's L holds the drop-in locks above, which package syncobj sees
// through to its own.
func init() {
	syncobj.DropInLock = func(l sync.Locker) sync.Locker {
		switch l := l.(type) {
		case *Mutex:
			return &l.e
		case *RWMutex:
			return &l.e
		}
		return l
	}
}
