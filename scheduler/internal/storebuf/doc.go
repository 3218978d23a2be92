// Package storebuf is the store buffers of -memory tso and pso: the
// component of the execution engine (scheduler/internal/engine) that holds
// every goroutine's buffered stores, commits them (a flush, a drain) and
// decides, pass by pass, which flushes and access points the explorer
// must treat as choices. It has its own state (Buffers per execution,
// Goroutine per goroutine, Passes per exploration) and reaches the engine
// only through the Host interface: the scheduling events, the flush
// pseudo-threads, the explorer's read/write sets, the trace and the names
// of memory regions. The engine keeps the hooks rewritten code calls
// (engine.Load, engine.Store, engine.Wrote, the fences) and forwards their
// store-buffer work here.
//
// # The machine
//
// Store buffers: the x86-TSO abstract machine of Owens, Sarkar and Sewell
// ("A better x86 memory model: x86-TSO", TPHOLs 2009; "x86-TSO: a rigorous
// and usable programmer's model for x86 multiprocessors", CACM 2010) and
// SPARC PSO.
//
//   - TSO: every goroutine has one FIFO store buffer. Store puts the value
//     in it; Load returns the newest buffered store of the goroutine to the
//     same address, else memory.
//   - PSO: a FIFO per goroutine and address, so stores to different
//     addresses may reach memory out of order; forwarding is the same.
//   - Committing the oldest entry of a buffer to memory is a scheduling
//     event of its own: every non-empty buffer has a flush pseudo-thread (a
//     controlled goroutine that commits one entry per block) that the
//     explorer chooses like any thread. Decisions are therefore the usual
//     (thread, end event) pairs and replay needs nothing new: a flush is a
//     block of the buffer's thread.
//   - Every synchronization operation of a goroutine (sync/atomic, Mutex,
//     RWMutex, Cond, channels, select, WaitGroup, Once, sync.Map, go
//     statements, its exit) drains its buffers first, inside its block: x86
//     implements them with LOCK'd instructions or MFENCE. The exception is
//     atomic loads: Go compiles them to a plain MOV on amd64, which does not
//     wait for the buffer, so a real machine can run an atomic load before
//     an earlier plain store is visible; xbtest drains there too (every
//     sync/atomic operation is a fence in its model) and does not explore
//     that reordering (for a plain store followed by an atomic load of
//     another variable: fewer behaviours than the hardware, never more).
//   - Accesses reported without their value (Read/Write: maps, the stores
//     of a tuple assignment the rewriter cannot split into temporaries,
//     x op= f() through a pointer, code compiled without the
//     value-carrying helpers) drain first and go to memory: they behave as
//     if fenced (fewer behaviours than the hardware, never more). Code
//     xbtest does not rewrite (the standard library) is not buffered at all;
//     a call into it that passes memory drains the caller's buffers first
//     (the engine's foreign.go), so that it sees the caller's stores and its own stores
//     do not overtake them.
//   - A buffered value is kept as a T in a typed entry, so the garbage
//     collector sees the pointers it holds.
//
// ExitBlock-RW stays sound with flushes. Its argument (thesis 2.4) is that
// if the block B a thread ran from a branch point touches nothing that the
// blocks the other threads run after that point touch, then B run after
// them reads the same values and leaves the same state as B run first, and
// they behave the same in either order: every such order is equivalent to
// one explored from the branch where B ran first. So in the branch where
// the others run first the thread stays delayed until a block touches B's
// reads and writes. That needs, of any two blocks whose recorded sets are
// disjoint, that they commute and that neither enables or disables the
// other. For the blocks of this machine:
//
//   - a flush block commits the head of its buffer to memory and is
//     recorded as a write of that address. It is the only way a buffered
//     store becomes visible to another goroutine, so a thread delayed after
//     reading the address (a load, from memory or its own buffer) is
//     re-enabled by the flush, and a delayed flusher by any block that reads
//     or writes the address it committed (a load, another goroutine's
//     flush of the same address, a drain);
//   - a load is recorded as a read of its address whether it is served from
//     memory or forwarded from the own buffer. A forwarded load commutes
//     with the flush of its own entry when the two are adjacent, but not
//     with what that flush lets happen next: after it, another goroutine's
//     store to the address can commit, and the load, run later, returns
//     that value, which no order with the load first gives. Recorded as a
//     read, it is re-enabled by the first of those flushes;
//   - a buffered store is recorded as nothing: it appends to its own
//     buffer, which only its own loads (recorded) and its own flusher read.
//     Appending commutes with committing the head (a flusher is enabled
//     only while its buffer is non-empty, so the head it commits is the same
//     in either order). A store to an empty buffer enables the flusher, a
//     wake-up as in a notify: in an order where the store comes later the
//     flusher was not enabled before it, so none of its blocks is among the
//     blocks the store is moved past;
//   - a drain (a fence) commits entries inside the fencing goroutine's block
//     and is recorded as writes of their addresses; the drained buffer's
//     flusher leaves the enabled and delayed sets in that block (it has
//     nothing left to commit), as a thread that parks would. The drain
//     disables the flusher, and both write the address of the head entry:
//     the dependence is recorded both ways.
//
// Pruning therefore only skips orders equivalent to explored ones: no
// outcome the model allows is lost. scheduler/litmus_test.go checks the
// outcome sets against a direct search of the abstract machines and, for
// the two-goroutine tests, exhaustive enumeration of every order of blocks;
// without the write recorded for a flush, SB, SB+rfi-pos, MP (pso), 2+2W,
// R, S (pso) and n6 lose allowed outcomes; without the writes of a drain,
// SB+mfences, MP+mfence, 2+2W, R and S; without the read of a forwarded
// load, n6.
//
// # Flush orders: passes
//
// Store buffers only where races are, eager flushes first (issue 23,
// item 6). The store buffers themselves (this package) are unchanged: every plain
// store of a goroutine goes into its buffer and is committed by a flush
// block of its flusher, or by a drain; the events and the scheduling
// points of an execution are the same whatever is known. What changes is
// what the explorer does with them:
//
//   - it runs an enabled flusher before any other thread (eager flushes
//     first: the first schedule is the SC-like one, the delays are the
//     branches; internal/exitblock/flushorder.go);
//   - a forced flush runs so, with no branch in which another block runs
//     first (sched.Engine.Flusher);
//   - a passed point (ptPass) ends no block: the point before an access to
//     a location no race is known on, the point before a synchronization
//     operation that follows only such accesses, and the fence whose
//     buffered stores are all to such locations (AccessStarts, OpPass,
//     Fence).
//
// A schedule file keeps every flush block and counts passed points as
// points, so it replays without knowing what the exploration knew.
//
// Passes. Exploration under tso or pso runs in passes, each a complete
// ExitBlock exploration of M_R: the machine explored with every flush of a
// store outside R forced and every point of an access outside R passed,
// where R is a set of racy words (the words on which package eraser has
// reported a data race, named across executions as package
// scheduler/internal/location names heap objects and package-level
// variables).
//
//   - Pass 0 explores M_R for R empty: every flush forced, every access
//     point passed. That is the program at synchronization granularity,
//     as -memory sc explores it by default, with stores committed by the
//     next synchronization operation: what sc finds, tso and pso find at
//     the same schedule. It learns racy words, and does not start over for
//     them. If it learnt none, it was the whole exploration (by (c)).
//   - Pass 1 explores M_R for the words pass 0 learnt; a pass that learns a
//     word not in R starts over with it (LearnRacy, the driver's
//     nextFlushPass); the pass that learns nothing ends the exploration.
//   - Without happens-before race detection (-race off|lockset) nothing is
//     learnt: pass 1 forces and passes nothing (every word counts as racy),
//     which is the exploration the package describes.
//
// Findings are kept across passes with the schedule they were first found
// at: every pass explores executions of the unchanged machine (a forced
// flush is a flush the machine may take there; a passed point, one where
// the goroutine may go on), so each finding is real, and a later pass
// explores a superset of the earlier one's executions. The result's notes
// say what the passes did. Exhaustive enumeration (-algo brute, the
// oracle) runs no passes: it stays the unreduced reference.
//
// Why M_R loses nothing once a pass learns nothing (the DRF-SC argument of
// Adve and Hill, "Weak ordering: a new definition", ISCA 1990, and of the
// Go memory model, for this machine):
//
//	(a) Every synchronization operation that gives a happens-before edge
//	    out of a goroutine (a release: unlock, send, close, atomic write,
//	    go statement, Done, ...) drains that goroutine's buffers first
//	    (above; the engine fences at each such event, its run.event). So if
//	    store s of goroutine A is still buffered, no access of another
//	    goroutine made meanwhile is ordered after s by happens-before, nor
//	    before it (a chain into A's store would have to end in an acquire
//	    by A before s, hence begin with a release before that acquire,
//	    before the access). Any access of another goroutine to s's bytes
//	    made while s is buffered, and any commit of another goroutine's
//	    store to them, is a data race with s on that execution. Likewise
//	    an access of A that is not a synchronization operation is
//	    unordered with every access of another goroutine made since A's
//	    last synchronization operation.
//	(b) Take any execution E of the machine and its first event e that
//	    completes a race on a word outside R (if any). Before e, for every
//	    store s outside R, no other goroutine touches s's bytes while s is
//	    buffered, by (a). So s's flush can be moved back to the first point
//	    where s heads its FIFO (its issue, under PSO or into an empty TSO
//	    buffer; the commit of the store before it otherwise): the events
//	    it moves past are other goroutines' (which do not touch its bytes),
//	    the owner's own stores (which only append to its buffers) and the
//	    owner's loads of those bytes (forwarded s, or a newer own store,
//	    before; memory, holding s, after). Every load reads the same value.
//	    In the same way an access outside R moves back to its goroutine's
//	    previous block boundary: no other goroutine touched its bytes since
//	    (a). The moved execution E' has the same events, the same values
//	    and the same happens-before, each flush outside R as early as it
//	    can be and each access outside R adjacent to the boundary before
//	    it: between a store and its goroutine's next boundary that
//	    goroutine only stores, computes and makes accesses outside R, so
//	    the flush the explorer forces at that boundary, or the drain at a
//	    passed fence, commits the same. So E' up to e is an execution of
//	    M_R, and it has the race of e.
//	(c) ExitBlock explores M_R completely up to equivalent orders, which
//	    keep happens-before, and eraser's detector is exact for the first
//	    race on a word (FastTrack), so an exploration of M_R that learns
//	    nothing new shows that no execution of the machine races outside
//	    R (the first such race would be found in M_R by (b)). Then (b)
//	    applies to every execution with no e at all: every execution of
//	    the machine is equivalent, outcome for outcome, to one of M_R.
//
// What (a) needs of the machine: no release without a drain. A setting
// that adds one (a CAS that is not a full barrier, a release fence that
// orders stores without draining) must turn the reduction off
// (Buffers.reduce) or drain there. What (c) needs of the detector: every
// race it returns reaches LearnRacy, expected ones included; accesses of
// one location have one shape (eraser keys words by their address; two
// accesses that overlap at different addresses are not seen to race,
// through unsafe only); and accesses it does not see (code xbtest does not
// rewrite, which also bypasses the store buffers) are outside the argument,
// as they are outside race detection. The explorer's own argument for
// unprotected locations assumes the same (package races,
// noteUnprotected).
//
// # Fences
//
// Fences weaker than MFENCE, and a compare-and-swap that is no fence: the
// hardware models of Ugawa, Abe and Maeda (OOPSLA 2017, Table 1), which
// lock-free code written for weak machines is checked against. Go has
// neither (its sync/atomic operations are sequentially consistent); the
// corpus spells them with package lockfree, whose calls the rewriter
// replaces by the engine's hooks (its fences.go), which call ReleaseFence,
// BufferedAt and DrainAt.
//
// In the store-buffer machines above loads are never reordered (a
// load reads memory or the own buffer when it runs), so only what a fence
// does to buffered stores matters:
//
//   - AcquireFence (McSPIN_acq_fence: earlier reads before every later
//     access) is a no-op under SC, TSO and PSO: loads already complete in
//     order.
//   - ReleaseFence (McSPIN_rel_fence: every earlier access before every
//     later write) is a no-op under SC and TSO (one FIFO keeps stores in
//     order). Under PSO the goroutine's next buffered store first drains
//     the stores buffered before the fence (with a block boundary before
//     the drain, as a fence has), so each of them commits before the later
//     store can; loads after the fence and before that store are not
//     ordered. The drain also orders the earlier stores before the loads
//     after the later store, which the fence does not: fewer behaviours
//     than the hardware, never more (as everywhere in this package). A
//     synchronization operation (an atomic store, a full CAS) drains
//     anyway.
//   - A relaxed CAS (-cas relaxed, PSO only; settings.RelaxedCAS) commits
//     the goroutine's buffered stores to its own address, then compares and
//     swaps in memory; stores to other addresses stay buffered and may
//     commit after it (the MP pattern with a no-barrier CAS as the flag
//     write). The CAS itself goes to memory at once: the paper's CAS is
//     atomic (its read and write happen together) and PSO keeps later loads
//     and stores after an earlier read.
//
// # Calls into code xbtest does not rewrite
//
// Code xbtest does not rewrite (the standard library, a dependency left as
// it is) reads and writes memory directly: it does not see the calling
// goroutine's buffered stores, and its own stores skip the buffer, so the
// older buffered ones would commit after them. Neither can happen on the
// hardware (a goroutine's loads forward from its own buffer; a FIFO commits
// in program order): slices.Contains(s, x) right after s[i] = x could
// answer false, and copy(dst, src) copy what src held before. So the
// rewriter drains the goroutine's buffers before such a call when it
// passes anything through which the callee can reach memory (a pointer, a
// slice, a map, an interface...): the call behaves as if fenced, fewer
// behaviours than the hardware has, never more. The drain is not a
// scheduling event of its own (as a load's drain over an overlapping store
// is not): with an empty buffer it does nothing, so code that does not
// store before such calls explores exactly what it did before.
package storebuf
