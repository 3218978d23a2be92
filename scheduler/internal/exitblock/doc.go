// Package exitblock is the ExitBlock family of exploration strategies
// (Bruening, "Systematic Testing of Multithreaded Java Programs", MIT,
// 1999, Ch. 2): ExitBlock (Fig 2.7, with Fig 2.9's wait and notify),
// ExitBlock-RW (Fig 2.12, read/write-set pruning), ExitBlock-DD and
// ExitBlock-RWDD (2.5, whose deadlock check is the engine's), and the
// exhaustive oracle that Algorithm Brute and the tests compare them with.
//
// # Who calls it
//
// The engine (scheduler/internal/engine) builds one Explorer per
// exploration (its newStrategy, from the test's Config: Options) and
// reaches it only through sched.Strategy: the driver between executions (what to replay next,
// whether anything is left, the hand-over between the processes of fork
// checkpoints), the engine at each event of an execution (a thread spawned,
// a shared access, a lock released, a block boundary, a wait, a choice
// point). The explorer in turn sees the execution only through sched.Engine:
// event numbers, threads named by creation index, virtual time, the heap's
// execution-independent names. A guided execution (xbtest -replay, the
// minimisation of a finding's schedule) is this explorer steered by the
// engine's sched.Director (Options.Director).
//
// # Where the thesis is
//
// exitblock.go opens with the thesis's loop (Figs 2.7, 2.9, 2.12) mapped
// line by line to the event handlers that implement it, then the choices
// the thesis leaves to its implementation and what Go adds (spawn branches,
// waiting writers, choice points, ticks, fairness). The stack of branches
// (the thesis's (RetPt, saved_enabled, saved_delayed, wait, no_notify)),
// the current path and the per-block state are there too. handover.go is
// the explorer's part of a fork checkpoint's hand-over; timedset.go the log
// of accesses after a go statement that spawn branches need.
//
// The explorer's path counts are pinned by package scheduler's tests
// (the thesis's own tables among them): a change here that changes a
// count changes the algorithm.
package exitblock
