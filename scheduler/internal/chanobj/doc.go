// Package chanobj holds the semantics of channels and of what is built on
// them under an execution: make, send, receive, close and len of a
// channel, select, the time package on the virtual clock (Sleep, timers,
// tickers, After, Tick, AfterFunc) and the context package's cancellable
// contexts and deadlines. It says what each operation does when the
// engine runs one goroutine at a time, where it ends an atomic block,
// what it tells the explorer and the race detector, and how a goroutine
// that cannot proceed waits.
//
// # Where it sits
//
// Rewritten code does not call it directly: package scheduler's hooks
// (MakeChan, Send, Select, TimeSleep, ContextWithCancel...) forward here
// and inline; its Case is this package's (an alias), its TimerCtl and
// TickerCtl are structs around this package's. As
// package syncobj (Mutex, WaitGroup, the atomics...), it is built only on
// the primitives of package scheduler/internal/engine, listed with their
// contracts in the engine's package doc ("Primitives of the drop-in
// objects", and "Channels, timers and contexts" for the few only this
// package uses). It imports the engine, never the reverse. The engine
// reaches back in two ways, each an interface of its own, so that it never
// names this package's types:
//
//   - Its tables: what this package knows of an execution (the channels'
//     models, tables.go) lives in a Slot of the execution's
//     (engine.ObjectTables), reset with each execution.
//   - Timers: a timer's channel (chanTimer, timers.go) and a context's
//     deadline (ctxDeadline, context.go) are engine.TimerTargets. The
//     virtual clock asks them, through the engine's clockHost, whether
//     anyone waits (Idle, Wakes), whether firing can be observed by others
//     than those it wakes (FiresAtOnce), and to act at the deadline
//     (Fire).
//
// The test handle (package scheduler/internal/testingobj's T) imports this
// package: a parallel subtest waits on channels it makes here, and
// T.Context is one of its contexts, so that T runs the very hooks
// rewritten code runs, with the same events.
//
// The engine names this package's frames by their package path, to find
// the first frame of user code (positions in reports) and the operation of
// a block in timelines (the outermost hook).
//
// # An operation
//
// Every operation starts with engine.Enter. Outside any execution (package
// initialisation, code outside the test body) it gets nil and does what
// the statement it replaces does. Inside one it calls, in the order the
// engine's doc sets: OpPoint, then Event; DataAccess on the channel's
// address (a channel is one location, written by every operation on it
// but len, so that ExitBlock-RW orders any two); the effect, with its
// happens-before edges (package races: HandOver for a send that meets its
// receiver, SendDone and RecvDone for the buffer, Publish for a close);
// then EndBlock, since another goroutine can observe a send, receive or
// close at once, or Park, to wait.
//
// # The model of a channel
//
// Whether an unbuffered send can proceed cannot be asked of a Go channel
// without committing to the send, so every channel instrumented code makes
// (MakeChan) has a model for the execution (chanState): the goroutines
// parked on it (sudog, as in Go's runtime), with the values they send.
// The buffered values stay in the real channel, which is what the program
// holds; an operation first tries the real channel without blocking, then
// pairs with a parked partner, then parks. Whoever makes a parked
// goroutine's operation complete (a partner, a receive that frees a slot, a
// close, a timer) performs it on its behalf and wakes it before its own
// block ends. Channels made outside any execution (package variables) are
// adopted by the first execution that uses them (madeOutside).
//
// A select (select.go) first looks for ready cases: when several are, which
// one proceeds is a choice of the exploration (engine.G.Choose), the first
// schedule taking the first. Otherwise, with a default case it takes it;
// without one it parks on every channel of its cases at once, tied by a
// selectWait: the first partner to serve one of them (sudog.fire) decides
// the case, and writes every channel of the select, since an operation on
// another of them, in the other order, would have served it instead.
//
// # Channels xbtest does not control
//
// A channel made by code that is not rewritten (a library's, the Done
// channel of a context a library derived) has no model (native.go). An
// operation on it is tried without blocking; when it cannot proceed, the
// goroutine parks as one of the engine's native waiters
// (engine.G.ParkNative), which the engine tries again at every scheduling
// point and tick and, when nothing else can happen, waits for for real.
// Reports name such a channel (engine.NotControlled).
//
// # Time
//
// The hooks of package time (timers.go) read and drive the engine's
// virtual clock (package scheduler/internal/vclock): Now reads it, Sleep
// parks until a sleep timer (engine.SleepTimer) wakes the goroutine,
// AfterFunc's timer (engine.FuncTimer) starts its function on a new
// goroutine. A Timer's or Ticker's C, and the channels of After and Tick,
// are modelled channels that their timer acts on (chanTimer): unbuffered,
// as Go 1.23's look, the value handed to a receiver at the deadline, so
// that Stop and Reset never leave a stale value behind. Stop and Reset
// (TimerCtl, TickerCtl: t.Stop() is rewritten to xb.TimerOf(t).Stop())
// are operations on that channel and writes of the clock.
//
// # Contexts
//
// Inside an execution, context.WithCancel and its siblings (context.go)
// return a vctx: a context.Context whose Done channel is a modelled
// channel, cancelled by closing it (a block boundary, as Err and Cause
// are), whose children are cancelled with it, and whose deadline is a timer
// of the virtual clock (ctxDeadline). A vctx belongs to the execution that
// made it (engine.Exec). A parent context xbtest did not make is watched
// (engine.Exec.Watch): the child is cancelled when a scheduling point or a
// tick finds the parent done. A vctx is what the context package calls an
// afterFuncer, so that a context a library derives from it is cancelled at
// the same point, by a function called with Err and Cause quiet (the
// tables' quiet count), rather than by a goroutine xbtest would not
// control.
//
// # Files
//
// chan.go (the model, MakeChan, Send, Recv, Close, Len), select.go (Case,
// Select), native.go (channels xbtest does not control), timers.go (the
// time package), context.go (the context package), tables.go (the
// per-execution state). The engine's audit.go
// lists, for each operation, whether it ends an atomic block and why.
package chanobj
