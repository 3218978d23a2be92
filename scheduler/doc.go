// Package scheduler is the runtime that code rewritten by xbtest calls: the
// hooks and drop-in types through which xbtest's controlled scheduler sees
// and orders every operation another goroutine could observe.
//
// # For rewritten code only
//
// Package instrument rewrites a package so that it imports this one (as
// xb) and calls it at every operation another goroutine could observe.
// Exactly one controlled goroutine runs at a time; at each such call the
// scheduler decides which runs next. What rewritten code calls:
//
//   - goroutines: Go (a go statement), Goexit, Gosched, Step (loop back
//     edges);
//   - memory: Read, Write, Load, Store, Wrote, Fence (and AcquireFence, ReleaseFence: package
//     lockfree), Global and GlobalOf
//     (package-level variables), Alloc, New, Slice, NewMap, MapAddr;
//   - channels: MakeChan, Send, Recv, Recv2, Close, Len, LenSend, Select
//     with SendCase and RecvCase;
//   - drop-in types with the size and alignment of those they replace:
//     Mutex, RWMutex, Cond (NewCond), WaitGroup, Once (OnceFunc,
//     OnceValue, OnceValues), Map, Pool, and the typed atomics Bool,
//     Int32, Int64, Uint32, Uint64, Uintptr, Pointer, Value; the functions
//     of sync/atomic (AddInt32, CompareAndSwapPointer, ...);
//   - time on a virtual clock: TimeNow, TimeSleep, TimeAfter, timers and
//     tickers (TimerOf, TickerOf), contexts with deadlines (ContextWith*);
//   - determinism: Rand and RandV2 (seeded per run), SortKeys and Maps*
//     (map iteration in a fixed order);
//   - tests: RunTest runs a rewritten test body under exploration, with T
//     and TB in place of *testing.T and testing.TB; RewrittenFor,
//     RegisterPositions, RegisterExprs and RegisterRacy (//xbtest:racy) are
//     called by the generated
//     helper file of each rewritten package.
//
// None of these is meant to be called by hand: their contracts are the
// rewrite's, and they change with it. Outside an exploration (package
// initialisation, code xbtest does not control) each behaves like what it
// replaces.
//
// # What is behind them
//
// Every hook forwards to the execution engine, package
// scheduler/internal/engine, or, for the drop-in objects built on the
// engine's primitives, to package scheduler/internal/syncobj (Mutex,
// RWMutex, WaitGroup, Once, Cond, the atomics, Map, Pool) or package
// scheduler/internal/chanobj (channels and select, the time package's
// hooks, contexts); T and TB are package scheduler/internal/testingobj's,
// the model of *testing.T. The registrations of source positions
// (RegisterPositions, RegisterExprs) forward to package
// scheduler/internal/srcpos, SortKeys and Maps* to package
// scheduler/internal/maporder, neither of which needs an execution. Every
// hook is small enough for the compiler
// to inline into rewritten code, so that a hook costs what the engine's
// fast path costs (Read, Write, Load and Step test one flag until the
// execution has a second goroutine). Where the implementing package's own
// type can serve, the name here is an alias of it (Cond and Pool, whose
// exported fields L and New rewritten code sets; T, TB, Pos, Case); the
// other drop-in types are structs around the implementation's, at the same
// address, so that the engine knows them by their addresses as it knows
// everything else.
//
// The engine runs one execution at a time; the driver,
// scheduler/internal/driver, repeats executions under an exploration
// strategy (scheduler/internal/exitblock, through the interfaces of
// scheduler/internal/sched) until the exploration is over; see their
// package docs. RunTest forwards to the driver, which reads the command's
// settings from the environment (result.RunConfig) and reports through the
// results file (result.Line); xbtest's own tests explore in process
// through the driver (Explore, Replay, and the engine's Config), which
// this package's tests reach through export_test.go.
package scheduler
