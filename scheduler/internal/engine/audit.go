package engine

// An audit of atomic blocks under Go's rules.
//
// The operations are this package's (goroutines, memory, locks' block
// boundaries) and those of the drop-in objects built on its primitives:
// package syncobj's (sync, sync/atomic) and package chanobj's (channels,
// select, timers, contexts).
//
// ExitBlock explores the orders of atomic blocks, the code between two lock
// releases. The thesis proves that this covers every behaviour of a program
// that follows a locking discipline, under Java's rules: a thread can observe
// or affect another only through what that thread does at a monitor exit
// (notify holds the monitor, Thread.start ends with a monitor exit, a failed
// monitor enter changes nothing and is undone). For each synchronization
// operation the scheduler controls, the question is the same: can another
// goroutine observe it, or be affected by it, before this goroutine's next
// block boundary? If so, it must be able to end a block (a branch point where
// the others may run first); if not, why it is safe inside a block is noted.
//
//	operation                       observable mid-block?                          in the explorer
//	------------------------------  ---------------------------------------------  -------------------------------------------
//	Mutex.Lock (free)               no: others block on it until Unlock            inside the block (thesis lock_enter)
//	Mutex.Lock (held)               no: fails, undone, waits for the release        abandoned block, lock's block set (thesis)
//	Mutex.Unlock (any goroutine)    yes: lock exit                                  boundary (thesis lock_exit)
//	Mutex.TryLock / TryRLock        yes: observes a held lock's middle, and its     restart knowing the lock; its acquisitions,
//	                                failure is observable to the one that tries     failed attempts included, end blocks, and
//	                                                                               taking or releasing it (Unlock, Cond.Wait)
//	                                                                               is a write of it for ExitBlock-RW
//	                                                                               (locks.go, TryLock); the failed attempt
//	                                                                               was UNSAFE before: difftest seeds 102,
//	                                                                               120, 70, 1002042, 1003279
//	RWMutex.Lock, readers present   yes: the writer waits and blocks new readers    not undone: parks (a block end)
//	RWMutex.Lock, writer present    no: fails, undone                               abandoned block, block set
//	RWMutex.RLock (free)            yes if the lock is also write-locked: a writer  UNSAFE before: now a boundary once the lock
//	                                may start waiting while it is held, and then    is seen both read- and write-locked
//	                                the holder's next RLock blocks                  (locks.go, "A waiting writer");
//	                                                                               corpus/gosync TestRecursiveRLock
//	RWMutex.RLock, writer waiting   no: fails, undone (a reader already holding     abandoned block; a lock-cycle finding when
//	                                it deadlocks)                                   the reader holds it (readerWriterCycle)
//	RWMutex.Unlock / RUnlock        yes: lock exit (RUnlock may hand the lock to    boundary
//	                                the waiting writer)
//	Cond.Wait (lock held)           yes: releases the lock                          releasing and waiting are one step, a
//	                                                                               block end (thesis wait = lock_exit)
//	Cond.Wait (lock held by another no owner in Go: the same                       the same; the release is the holder's
//	goroutine, Go allows it)
//	Cond.Signal/Broadcast, c.L held no: the woken waiter needs the lock             a choice point (thesis notify), the waiter
//	                                                                               joins the lock's block set
//	Cond.Signal/Broadcast, c.L free yes: the waiter can run at once (Java's notify  UNSAFE before: now a wake point, a branch
//	(or not a scheduler lock)       must hold the monitor)                          that lets it run before the rest of the
//	                                                                               block, as after a go statement;
//	                                                                               corpus/gosync TestSignalOutsideLock
//	chan send / receive             yes: a partner or a buffer slot                 boundary after the operation; parks when
//	(buffered and unbuffered)                                                       it cannot proceed
//	close                           yes: wakes receivers, later ops see it          boundary
//	len(ch)                         yes: it counts the others' sends and receives   boundary after the operation (a loop
//	                                                                               polling it gives way, as on an atomic);
//	                                                                               UNSAFE before: a read inside the block,
//	                                                                               a poll saw one count forever (go-watermill
//	                                                                               TestPublishSubscribe_flush_output_channel)
//	nil channel send/receive        no: blocks forever                              parks forever (a leak if the test ends)
//	select with ready cases         yes                                             choice point (which case) + boundary
//	serving a parked select (a      yes: it decides the select's case; an           a write of every channel of the select, for
//	send, receive or close that     operation on another of its channels, first,    ExitBlock-RW (chanobj's sudog.fire); UNSAFE
//	completes it)                   would have served it instead                    before under -algo exitblock-rw(dd): corpus/
//	                                                                               gosync TestSelectServedFirst
//	select with default, none ready yes: it observed that nothing was ready         boundary
//	WaitGroup.Add(n>0)              no: a Wait that could see the old count runs    inside the block; the counter is an access
//	                                in a block of its own, ordered before or after  of the WaitGroup for ExitBlock-RW
//	WaitGroup.Add(n<0), Done        yes: may release waiters                        boundary
//	WaitGroup.Wait                  yes: observes the counter                       boundary, or parks
//	Once.Do                         through its Mutex and done flag                 the Mutex's boundaries; done is set before
//	                                                                               the Unlock, nothing in between
//	sync/atomic (every op)          yes                                             boundary after each operation
//	sync.Map, sync.Pool ops         yes                                             boundary after each operation
//	context cancel, Done, Err       yes                                             boundary (chanobj's context.go)
//	go statement                    yes: the child can run at once (Thread.start    spawn branch when the rest of the block
//	                                ends with a monitor exit in Java)               does something the child could observe
//	goroutine exit                  only through what it did before (Done, close)   ends the block without a branch (thesis)
//	runtime.Gosched                 a hint only                                     boundary that gives way (fairness)
//	time.Now/Since/Until            no: time moves only at ticks, between blocks    a step, no boundary
//	time.Sleep, timer/ticker wait   yes                                             parks; fires at a tick
//	starting a timer (Sleep, After, with -timers eager or D: the clock may fire     -timers synctest: a step; eager or D: a
//	NewTimer, AfterFunc, Reset,     it before the rest of the block                 write of the clock, and a wake point when
//	WithTimeout...)                                                                the clock can fire it (vclock/eager.go)
//	Timer/Ticker Stop, Reset        yes: its result observes the timer              boundary, a write of the clock
//	timer firing                    yes                                             at a tick, when no goroutine can run
//	                                                                               (testing/synctest's rule), and under
//	                                                                               -timers eager or D at any scheduling point
//	                                                                               too, as a block of the clock pseudo-thread
//	                                                                               (vclock/eager.go); UNSAFE under synctest's rule
//	                                                                               for code that relies on a short timer not
//	                                                                               firing early: corpus/timing
//	                                                                               TestEarlyTimeout, TestTickBeforeStop
//	any operation after a shared    yes: others may write the location between     at -granularity access, the operation
//	access, at -granularity access  the access and the operation                    starts with a point (brute.go); UNSAFE
//	                                                                               before under every -algo: litmus seed 48
//	                                                                               (scheduler/litmus_diff_test.go)
//
// Timers. Under -timers synctest virtual time advances only when no
// controlled goroutine can run (package vclock), as under testing/synctest: a
// timer never fires while another goroutine is runnable. Real Go does not
// promise that (a 1 ns timer may fire before a runnable goroutine is
// scheduled). -timers eager lets any started timer fire at any scheduling
// point, after the timers due before it; -timers D does so for the timers
// due within D of the virtual now, and follows synctest's rule for the
// others (vclock/eager.go). Which orders of a due timer against running
// goroutines exist is a choice of semantics, not a pruning; README.md says
// which is the default and why.
//
// The cases marked UNSAFE were missed before the explorer learnt them: the
// RWMutex and Cond cases under every -algo (corpus/gosync's README), the
// TryLock ones under every -algo or under ExitBlock-RW (difftest's
// regression table says which), the served select under ExitBlock-RW, the
// operation after an access under every -algo (found by the memory models'
// differential check, scheduler/litmus_diff_test.go), and the early timer
// under every -algo with synctest's rule, which stays available. The thesis's programs use none of them, so
// Tables 4.1 and 4.2 are unchanged. Each row is checked by difftest, which
// compares every -algo with -algo brute (a scheduling point before every
// synchronization operation, no pruning) on generated programs.
