// Package sched is the vocabulary the scheduler's execution engine and its
// exploration strategies share: the interfaces between them and what they
// hand each other, and nothing of either side's workings.
//
// Package scheduler/internal/engine runs one execution of a test at a time
// (the engine); package scheduler/internal/driver repeats executions until
// the exploration is over (the driver). Which
// goroutine runs each atomic block, and which branches are left to explore,
// is a strategy's. Package scheduler/internal/exitblock is the one strategy
// so far: the ExitBlock family of Bruening's thesis ("Systematic Testing of
// Multithreaded Java Programs", MIT, 1999, Ch. 2), whose pseudocode heads
// its exitblock.go. Another (random, PCT, DPOR) would be a package beside
// it that implements Strategy; the driver's newStrategy picks one from the
// configuration.
//
// The interfaces (strategy.go):
//
//   - Strategy is what the engine and the driver call: the thesis's loop
//     cut into its event handlers (a thread spawned, a shared access, a
//     lock released, a block boundary, a wait, a choice point), each with
//     the figure of the thesis it comes from, and the stack across
//     executions (what to replay next, whether anything is left, the
//     hand-over between the processes of fork checkpoints);
//   - Engine is what a strategy may ask of the execution under way: event
//     numbers, virtual time, the translation of read/write sets;
//   - Director steers a strategy through a recorded schedule (xbtest
//     -replay, the minimisation of a finding's schedule).
//
// What crosses them:
//
//   - threads, named by creation index (int32), which names the same
//     goroutine in every re-execution of a common prefix, and sets of them
//     (TSet);
//   - paths: a Decision is one atomic block of a path (the thread that ran
//     it, the event it ended at, its choices); replaying a path is how an
//     execution backs up to a branch point;
//   - read/write sets (RWSet, by address, in one execution) and their
//     execution-independent form (CanonRW, CanonAccess, HeapKey,
//     RegionKind), which the engine translates to and fro;
//   - lock block sets (Blocked);
//   - the hand-over encoding between the processes of fork checkpoints
//     (Enc, Dec), which both sides write into one stream.
//
// Nothing here depends on either side; both import it.
package sched
