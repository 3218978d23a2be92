package engine

// The brute-force reference explorer (Algorithm Brute), for checking the
// ExitBlock family on generated programs (package difftest), and the
// point an operation starts with at access granularity: both are G.OpPoint
// (primitives.go), which every synchronization operation calls before its
// event.
//
// It is the exhaustive oracle (Config.oracle, exitblock.Options.Oracle: at
// every block end, and after every go statement, every other enabled
// goroutine gets a branch that runs it first; no delayed sets, no pruning)
// with one more thing: every synchronization operation starts with a
// scheduling point.
// Under ExitBlock a block runs from one lock exit (or an operation that
// counts as one) to the next, so a lock enter, a Cond.Signal or Broadcast, a
// TryLock or an RLock inside a block is never a place where another
// goroutine may run first; that is exactly what ExitBlock's argument says
// need not be explored, and what the reference must not assume. With a
// point before every operation (and the points after the operations that
// end blocks anyway), every interleaving of synchronization operations is
// explored; at access granularity every shared access is a point too. A
// lock enter that finds its lock held still abandons the block (the thread
// joins the lock's blocked set at the point just before it), which loses
// nothing: the abandoned block is that one operation.
//
// A point is needed between two operations of a goroutine, not one before
// each: most operations end with a point of their own (a lock exit, a
// channel or atomic operation), and the accesses between that point and the
// next operation are invisible to the others at synchronization granularity
// (at access granularity each is a point). So an operation starts with a
// point only if another operation ran since the last point (a lock enter,
// a Signal), which keeps the tree a few times smaller and every point at an
// event number of its own (a replay tells a goroutine's points apart by
// their event numbers).

// Access granularity. A shared access starts a block (the point comes
// before it), and a synchronization operation ends one, so without more an
// access and the operation after it (v := x; atomic.AddInt32(&n, 1)) would
// be one block, and another goroutine's store to x could never come
// between them, which Go allows: at access granularity an operation that
// follows an access in its block starts with a point of its own, under
// every algorithm (an event first, so that the point has its own number).
// scheduler/litmus_diff_test.go found it: G0{r0=x; xchg(x,1); x=2}
// G1{y=3; r1=x; xchg(x,4)} never reached r0=0 r1=0 under -memory sc.
