// Package scheduler is xbtest's controlled scheduler: the runtime that
// rewritten code calls, and the exploration that runs each test once per
// meaningfully different schedule of its goroutines.
//
// # For rewritten code only
//
// Package instrument rewrites a package so that it imports this one (as
// xb) and calls it at every operation another goroutine could observe.
// Exactly one controlled goroutine runs at a time; at each such call the
// scheduler decides which runs next. What rewritten code calls:
//
//   - goroutines: Go (a go statement), Goexit, Gosched;
//   - memory: Read, Write, Load, Store, Wrote, Fence, Global and GlobalOf
//     (package-level variables), Alloc, New, Slice, MapAddr;
//   - channels: MakeChan, Send, Recv, Recv2, Close, Len, LenSend, Select
//     with SendCase and RecvCase;
//   - drop-in types with the size and alignment of those they replace:
//     Mutex, RWMutex, Cond (NewCond), WaitGroup, Once (OnceFunc,
//     OnceValue, OnceValues), Map (NewMap), Pool, and the typed atomics
//     Bool, Int32, Int64, Uint32, Uint64, Uintptr, Pointer, Value; the
//     functions of sync/atomic (AddInt32, CompareAndSwapPointer, ...);
//   - time on a virtual clock: TimeNow, TimeSleep, TimeAfter, timers and
//     tickers (TimerOf, TickerOf), contexts with deadlines (ContextWith*);
//   - determinism: Rand and RandV2 (seeded per run), SortKeys and Maps*
//     (map iteration in a fixed order);
//   - tests: RunTest runs a rewritten test body under exploration, with T
//     and TB in place of *testing.T and testing.TB; RewrittenFor,
//     RegisterPositions and RegisterExprs are called by the generated
//     helper file of each rewritten package.
//
// None of these is meant to be called by hand: their contracts are the
// rewrite's, and they change with it.
//
// # The engine and the explorer
//
// Inside, three parts. The execution engine (run.go and the files of the
// hooks above; clock.go and eager.go for virtual time, tso.go for store
// buffers under -memory tso|pso, deadlock.go, race.go feeding package
// eraser, location.go naming memory the same way in every execution,
// fingerprint.go for package-level state; brute.go for the extra
// scheduling points of Algorithm Brute) runs one execution and calls the
// exploration strategy at the thesis's events. The strategy decides which
// goroutine runs each atomic block and keeps the stack of branches; it is
// package internal/exitblock, the ExitBlock family, whose exitblock.go maps
// the thesis's pseudocode to its event handlers. The driver (explore.go;
// follow.go and guide.go follow a recorded schedule and shorten a
// finding's; handover.go carries state across fork checkpoints) repeats
// executions until the strategy has nothing left, a bound is hit or a
// finding stops it, and turns what it saw into a result.Result.
//
// The engine and the driver reach the strategy only through the interface
// sched.Strategy, and the strategy reaches the execution only through
// sched.Engine, which run implements (engine.go); package internal/sched
// holds both and the types they exchange (paths, thread sets, read/write
// sets). newStrategy (strategy.go) builds the strategy from a Config: a
// second strategy would be another package implementing sched.Strategy.
//
// Explore and Replay are the in-process entry points (xbtest's own tests
// use them with a Config); RunTest reads the command's settings from the
// environment (result.RunConfig) and reports through the results file
// (result.Line). The settings are package settings'; the results, package
// result's.
package scheduler
