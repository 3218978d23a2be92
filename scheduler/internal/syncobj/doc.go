// Package syncobj holds the semantics of xbtest's drop-in synchronization
// objects under an execution: what a Mutex, an RWMutex, a WaitGroup, a
// Once, a Cond, the sync/atomic functions and types, a Map and a Pool do
// when the engine runs one goroutine at a time, where their operations
// end atomic blocks, what they tell the explorer and the race detector.
// As loom's sync is built on its rt, this package is built on the
// primitives of package scheduler/internal/engine (engine.G's methods,
// listed with their contracts in the engine's package doc, "Primitives of
// the drop-in objects"): it imports the engine, never the reverse; the
// engine keeps this package's per-execution state as an opaque
// engine.ObjectTables, a lock's state as its own lock bookkeeping
// (engine.Lock, which deadlock detection reads), and names this package's
// frames only by package path (own frames, operation names in schedules).
//
// Rewritten code does not call it directly: package scheduler's drop-in
// types are structs around this package's (or aliases, as Cond), whose
// methods forward here and inline. Every operation starts with
// engine.Enter: outside any execution (package initialisation, code
// outside the test body) an object behaves as the native one it holds;
// each has exactly the size of the type it replaces, so that layouts code
// relies on stay the same under xbtest.
//
// Files: waitgroup.go, once.go (Once, OnceFunc, OnceValue, OnceValues),
// mutex.go (Mutex, RWMutex, their TryLocks; their state is the engine's
// lock bookkeeping, engine.Lock), cond.go (Cond; a Cond over the
// scheduler's Mutex or RWMutex releases it and starts waiting in one step),
// atomic.go (sync/atomic; a compare-and-swap that -cas relaxed makes no
// fence starts with the engine's RelaxedCASStart), syncmap.go (Map, Pool),
// tables.go (the per-execution states). The engine's audit.go lists, for
// each operation, whether it ends an atomic block and why.
package syncobj
