// Package sched is the vocabulary the scheduler's execution engine and its
// exploration strategies share: what one side hands the other, and nothing
// of either side's workings.
//
// Package scheduler runs one execution of a test at a time (the engine)
// and repeats executions until the exploration is over (the driver). Which
// goroutine runs each atomic block, and which branches are left to
// explore, is a strategy's: package exitblock implements the ExitBlock
// family of Bruening's thesis ("Systematic Testing of Multithreaded Java
// Programs", 1999, Ch. 2), whose pseudocode heads its exitblock.go.
//
// What this package holds:
//
//   - paths: a Decision is one atomic block of a path (the thread that ran
//     it, the event it ended at, its choices); replaying a path is how an
//     execution backs up to a branch point;
//   - thread sets (TSet): threads are named by creation index, which names
//     the same goroutine in every re-execution of a common prefix;
//   - read/write sets (RWSet, by address, in one execution) and their
//     execution-independent form (CanonRW, CanonAccess, HeapKey,
//     RegionKind), which the engine translates to and fro;
//   - lock block sets (Blocked);
//   - the hand-over encoding between the processes of fork checkpoints
//     (Enc, Dec).
//
// Nothing here depends on either side; both import it.
package sched
