package scheduler

// The brute-force reference explorer (Algorithm Brute), for checking the
// ExitBlock family on generated programs (package difftest).
//
// It is the exhaustive oracle (Config.oracle, exitblock.go: at every block
// end, and after every go statement, every other enabled goroutine gets a
// branch that runs it first; no delayed sets, no pruning) with one more
// thing: every synchronization operation starts with a scheduling point.
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
// The point comes before the operation's event, so that it is never at the
// event number of a point the operation itself reaches (a replay tells the
// points of a goroutine apart by their event numbers: an Unlock's lock exit
// must not be taken for the point before it). Two points with no event
// between them are one point: opPoint does not end an empty block.

// opPoint is called by a synchronization operation before its event.
func (r *run) opPoint(t *thread) {
	if r.brute && r.lastPoint != r.events {
		r.yield(t)
	}
}
