package checkpoint

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Fork backs up with processes (see the package comment). A Fork is used
// for the exploration of one test.
//
// The tree of processes follows the explorer's depth-first order. The root
// (the test binary) holds the zygote: the state before the test body, depth
// 0. A holder at depth d is a process stopped with the program state after d
// decisions of the current path; every branch left on the explorer's stack
// at depth >= d shares those d decisions (the stack is sorted by depth, and
// a branch is pushed only from a prefix of the current path), so the holder
// can serve all of them: fork a child, let it replay from d to the branch
// and explore on, take back the state it leaves, and fork the next. When the
// next branch lies above d, the holder hands the state to its own parent and
// exits.
type Fork struct {
	auto bool

	stall    time.Duration // a child that makes no progress this long is killed
	forkCost time.Duration // measured in the root; 0: not measured (no snapshots)
	pageCost time.Duration // what each page a forked process writes adds to its fork
	// page faults of this process when its execution under way started
	// (runChild)
	execFaults int64
	off        string // why forking is not possible here, if it is not
	// depth of the nearest snapshot above this process: a child returns
	// there once the next branch is at or below it. -1: none (the root).
	parentDepth int
	noSnapshot  string
	every       bool                   // tests: a snapshot at every branch point
	never       bool                   // tests: none
	where       func(d, next int) bool // tests: a snapshot where it says
	// the tree's counts of forked processes that have left and of the
	// pages they wrote when this exploration started (snapshotCost)
	left0, copied0 int64

	// auto, in the root: reach[d] is how long the execution under way took
	// to reach its branch point at depth d; dear counts the executions in a
	// row whose successor had to replay a prefix dearer than a forked child.
	reach  []time.Duration
	dear   int
	forked time.Duration // what a forked child cost when dear last weighed it
}

// dearInARow is how many executions in a row must have replayed a prefix
// dearer than a fork before auto forks instead. One is not enough: on a
// loaded machine, or when the collector runs, a cheap prefix now and then
// takes longer than a fork, and a switch to forking costs every later
// schedule a fork; a set-up that is really expensive is so every time.
// Executions that pay one-time costs are no evidence either way: the first
// (first-time initialisation), and, until one runs without page faults,
// those that wrote pages for the first time. A set-up writes fresh pages
// until the heap has grown to what the test needs (up to the collector's
// 4 MB minimum heap, that many bytes of set-ups) and, after the zygote's
// fork, until each page it writes has been copied once: a set-up of 0.5 MB
// took 500 to 1,000 µs (100 to 300 faults) in its first ten or so
// executions, then 20 to 250 µs (no faults), against a fork of about
// 450 µs; counting those forked tests that re-run 3 to 4 times faster.
// Faults after that (the heap growing again) are ordinary costs. warmUp
// bounds the wait for a test whose every execution faults; it covers
// set-ups down to 4 MB/warmUp = 128 KB, and smaller ones cost far less
// than a fork even cold.
const (
	dearInARow = 3
	warmUp     = 32
)

// NewFork returns the fork strategy; auto re-runs in a child while that is
// sound.
func NewFork(auto bool) *Fork {
	return &Fork{auto: auto, parentDepth: -1, stall: 30 * time.Second}
}

// SnapshotEverywhere makes f take a snapshot at every branch point, however
// cheap the prefix (tests of the snapshot tree).
func (f *Fork) SnapshotEverywhere() *Fork { f.every = true; return f }

// SnapshotNowhere makes f take no branch-point snapshot (tests of what a
// forked process that re-runs executions does).
func (f *Fork) SnapshotNowhere() *Fork { f.never = true; return f }

// SnapshotWhere makes f take a snapshot at a branch point at depth d,
// on the way to the start at depth next, where keep says, however cheap
// the prefix: tests of the snapshot trees that costs give, which vary with
// the machine's load. keep is called in the process that would keep the
// snapshot (each process has its own copy of what the closure holds).
func (f *Fork) SnapshotWhere(keep func(d, next int) bool) *Fork { f.where = keep; return f }

// SetWatchdog sets how long a child may make no progress (no scheduling
// events, no CPU time) before it is killed; 0 disables.
func (f *Fork) SetWatchdog(d time.Duration) { f.stall = d }

// Name implements Backer.
func (f *Fork) Name() string {
	if f.auto {
		return "auto"
	}
	return "fork"
}

// Explore implements Backer in the root. The root forks once: the zygote,
// a copy of the process before the test body, which forks the children
// that run executions, describes the findings, and hands everything back.
// Forking only from the zygote and its descendants matters: they are
// single-threaded (a child has only the thread that forked it), while the
// root has the runtime's other threads, one of which might hold a runtime
// lock at the instant of a fork and leave the child wedged. That one fork
// from the root is checked (forkZygote) and repeated if the zygote does not
// come up.
//
// Under auto the root re-runs the body itself, with the zygote forked
// beforehand and waiting; see exploreAuto.
func (f *Fork) Explore(t Target) {
	f.off, f.noSnapshot, f.parentDepth, f.reach, f.dear = "", "", -1, f.reach[:0], 0
	if why := f.unsafe(); why != "" {
		f.off = why
		t.Note("checkpoint " + f.Name() + ": cannot fork (" + why + "); re-running the test body instead")
		Rerun{}.Explore(t)
		return
	}
	f.left0, f.copied0 = shm.left.Load(), shm.copied.Load()
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	if why := strings.Join(settledHazards(), "; "); why != "" {
		f.off = why
		t.Note("checkpoint " + f.Name() + ": forking is unsafe here (" + why + "); re-running the test body instead")
		Rerun{}.Explore(t)
		return
	}
	if f.auto {
		f.exploreAuto(t)
		return
	}
	nameFinal()
	defer dropFinal()
	restore := gcOffForFork()
	c, _, err := forkZygote(false)
	if c != nil || err != nil {
		restore()
	}
	if err != nil {
		// Nothing has run yet: re-running is sound while the package
		// state stays unchanged, which Rerun checks after every schedule.
		f.off = err.Error()
		t.Note("checkpoint " + f.Name() + ": cannot fork (" + err.Error() + "); re-running the test body instead")
		Rerun{}.Explore(t)
		return
	}
	if c == nil {
		t.Forked()
		f.zygote(t)
	}
	f.awaitZygote(t, c)
}

// awaitZygote waits for the zygote to explore and merges what it hands back.
func (f *Fork) awaitZygote(t Target, z *child) {
	o := z.wait(f.stall, nil)
	if !o.ok() || len(o.data) == 0 {
		t.Fail(fmt.Sprintf("checkpoint: the zygote (pid %d) %s before handing back its results", z.pid, o))
		return
	}
	if err := t.Load(o.data); err != nil {
		t.Fail("checkpoint: " + err.Error())
	}
}

// exploreAuto re-runs the test body in the root for as long as that is
// sound (package state unchanged after every execution) and cheap (the
// prefix the next execution replays, timed in this one, cost less than a
// fork, but for at most dearInARow-1 executions in a row). A zygote, forked
// before the first execution, waits meanwhile: if an execution changes
// package state, or replaying prefixes turns out dearer than forking, the
// root hands it the exploration state and it explores the rest by fork
// (the root's own state is no longer the initial one). Otherwise it is told
// to leave. Running in the root matters beyond speed: a forked child has no
// thread but its own, so a goroutine that blocks in a system call stops it
// (a test that runs a subprocess and reads its output would stall), and
// auto forks only for the tests that need it.
func (f *Fork) exploreAuto(t Target) {
	f.forkCost, f.pageCost = forkCost()
	nameFinal()
	defer dropFinal()
	restore := gcOffForFork()
	z, ctl, err := forkZygote(true)
	if z != nil || err != nil {
		restore()
	}
	if err != nil {
		t.Note("checkpoint auto: cannot fork (" + err.Error() + "); re-running the test body instead")
		Rerun{}.Explore(t)
		return
	}
	if z == nil {
		// The zygote: wait for the root's state, or leave.
		state := readAll(ctl)
		if len(state) == 0 {
			syscall.Exit(0)
		}
		if err := t.Load(state); err != nil {
			t.Fail("checkpoint: " + err.Error())
			leave(t.Save())
		}
		f.zygote(t)
	}
	warm, skipped := false, 0
	for n, first := t.Next(), true; n >= 0; n, first = t.Next(), false {
		f.reach = f.reach[:0]
		faults := pageFaults()
		t.RunFrom(n)
		warm = warm || !first && pageFaults() == faults
		ok, why := t.Clean()
		switch {
		case f.every:
			f.dear++
		case first || !warm && skipped < warmUp:
			// One-time costs (see dearInARow): no evidence.
			skipped++
		case f.dearer(t):
			f.dear++
		default:
			f.dear = 0
		}
		slow := f.dear >= dearInARow
		if ok && !slow {
			continue
		}
		// Hand over, even when nothing is left to explore: the findings
		// are described on the initial state, which only the zygote has.
		if !ok {
			t.Note("checkpoint auto: re-ran the test body until " + why + "; forked from a zygote after that")
		} else {
			t.Note(fmt.Sprintf("checkpoint auto: re-ran the test body until %d schedules in a row replayed a prefix dearer than a forked child (%v); forked after that, with branch-point snapshots", dearInARow, f.forked.Round(time.Microsecond)))
		}
		writeAll(ctl, t.Save())
		syscall.Close(ctl)
		f.awaitZygote(t, z)
		return
	}
	syscall.Close(ctl)
	z.wait(f.stall, nil)
	t.Note("checkpoint auto: re-ran the test body (package-level state unchanged after every schedule)")
	t.Describe()
}

// dearer reports whether the next execution, re-run in this process, would
// replay a prefix dearer than forking a process that holds it: this
// execution timed that prefix, and a forked child costs what snapshotCost
// says and the exploration state handed to it and back (timed, when it
// matters, by encoding it once).
func (f *Fork) dearer(t Target) bool {
	next := t.Next()
	fork := f.snapshotCost()
	if next < 0 || next >= len(f.reach) || f.reach[next] <= fork {
		return false
	}
	start := time.Now()
	t.Save()
	f.forked = fork + 2*time.Since(start)
	return f.reach[next] > f.forked
}

// zygote is the process the executions are forked from; it leaves when
// exploration is over.
func (f *Fork) zygote(t Target) {
	f.forkCost, f.pageCost = forkCost()
	forks0, snaps0, hangs0 := shm.forks.Load(), shm.snapshots.Load(), shm.hangs.Load() // measuring does not count
	for n := t.Next(); n >= 0; n = t.Next() {
		c, err := spawn()
		if err != nil {
			t.Fail(err.Error())
			break
		}
		if c == nil {
			t.Forked()
			f.runChild(t, n)
		}
		if !f.collect(t, c) {
			break
		}
	}
	f.summarize(t, shm.forks.Load()-forks0+1, shm.snapshots.Load()-snaps0, shm.hangs.Load()-hangs0)
	t.Describe()
	leave(t.Save())
}

// runChild is a child of the zygote: it runs executions until it must
// return to its parent, then leaves.
func (f *Fork) runChild(t Target, n int) {
	f.parentDepth = 0
	for ; n >= 0; n = t.Next() {
		// The collector runs only where asked (collect_linux.go): here too,
		// or a child that re-runs executions with few scheduling events
		// (few beats) grows its heap by each one's garbage, and pays a page
		// fault for every page of it.
		collectIfDue()
		f.execFaults = pageFaults()
		t.RunFrom(n)
		if !f.auto {
			break
		}
		if ok, why := t.Clean(); !ok {
			t.Note("checkpoint auto: forking a fresh process per schedule: " + why)
			break
		}
		if f.parentDepth > 0 {
			// A child of a branch-point snapshot: the next branch is
			// either below the snapshot (cheaper to fork from there than
			// to re-run the body) or above it (another prefix: the
			// snapshot's subtree is done). Either way, back to it.
			break
		}
	}
	leaveStopped(t)
}

// collect waits for a child and merges what it hands back. A child that
// hung (the program's goroutines are reported by the child's own watchdog;
// this is the process stuck) or crashed loses the schedules it was
// exploring: exploration stops, incomplete.
func (f *Fork) collect(t Target, c *child) bool {
	o := c.wait(f.stall, t.Alive)
	if state, ok := finalState(); ok {
		// Stopped, and the process that stopped wrote its state (stop.go):
		// a snapshot leaves at once; the zygote takes the state.
		if f.parentDepth >= 0 {
			syscall.Exit(0)
		}
		if err := t.Load(state); err != nil {
			t.Fail("checkpoint: " + err.Error())
			return false
		}
		return true
	}
	if !o.ok() || len(o.data) == 0 {
		t.Fail(fmt.Sprintf("checkpoint: a forked child (pid %d) %s before handing back its results; the schedules it was exploring are lost", c.pid, o))
		return false
	}
	if err := t.Load(o.data); err != nil {
		t.Fail("checkpoint: " + err.Error())
		return false
	}
	t.Alive()
	return true
}

// AtBranchPoint implements Backer.
func (f *Fork) AtBranchPoint(t Target, d int, elapsed time.Duration) Resume {
	if f.parentDepth < 0 {
		// The root (auto): no snapshot here, but what reaching this
		// point cost tells whether replaying prefixes is dearer than
		// forking (exploreAuto weighs it).
		if f.auto && f.off == "" && f.forkCost > 0 {
			for len(f.reach) <= d {
				f.reach = append(f.reach, 0)
			}
			f.reach[d] = elapsed
		}
		return Stay
	}
	if d <= f.parentDepth || f.noSnapshot != "" || f.never {
		return Stay // one snapshot per depth
	}
	switch {
	case f.where != nil:
		if !f.where(d, t.Next()) {
			return Stay
		}
	case f.every:
	case f.forkCost == 0 || f.replayCost(t, elapsed) < f.snapshotCost():
		return Stay
	}
	if h := hazards(); len(h) > 0 {
		f.noSnapshot = strings.Join(h, "; ")
		t.Note("checkpoint: no branch-point snapshots: " + f.noSnapshot)
		return Stay
	}
	shm.snapshots.Add(1)
	first := true
	for {
		c, err := spawn()
		if err != nil {
			t.Fail(err.Error())
			leave(t.Save())
		}
		if c == nil {
			t.Forked()
			f.parentDepth = d
			if first {
				return Continue
			}
			return Redirect
		}
		ok := f.collect(t, c)
		first = false
		if !ok || t.Next() < d {
			leaveStopped(t)
		}
	}
}

// replayCost is what replaying the prefix that took elapsed to reach here
// would cost the next execution that needs it, if this process kept no
// snapshot. A child of the zygote under auto re-runs the next executions
// itself while package state is clean: its first execution ran cold (each
// page it wrote for the first time since the fork was copied), the next
// will not, so the copies do not count. Any other process is the only one
// of its kind: the next execution is a new child, as cold.
func (f *Fork) replayCost(t Target, elapsed time.Duration) time.Duration {
	if !f.auto || f.parentDepth != 0 {
		return elapsed
	}
	if ok, _ := t.Clean(); !ok {
		return elapsed
	}
	return elapsed - time.Duration(pageFaults()-f.execFaults)*f.pageCost
}

// snapshotCost is what a child forked from a snapshot costs: the fork
// (measured) and a copy of each page it writes, as many as the forked
// processes of this exploration that have left wrote on average (each
// counts its page faults), or, before any has, those of the explorations
// before it in this test binary, at the cost of a page measured with the
// fork. A fork that exits at once costs about half a forked execution: the
// child's first writes to the runtime's and the scheduler's working set,
// its stacks and its heap each copy a page.
func (f *Fork) snapshotCost() time.Duration {
	left, copied := shm.left.Load(), shm.copied.Load()
	if n := left - f.left0; n > 0 {
		return f.forkCost + time.Duration((copied-f.copied0)/n)*f.pageCost
	}
	if left > 0 {
		return f.forkCost + time.Duration(copied/left)*f.pageCost
	}
	return f.forkCost
}

// Isolate implements Backer: in the zygote, fn runs in a child of it; in
// the root (auto, whose state is the initial one when it describes) and in
// children, in the process.
func (f *Fork) Isolate(t Target, fn func() []byte) []byte {
	if f.off != "" || f.parentDepth >= 0 || shm == nil || isRoot() {
		return fn()
	}
	c, err := spawn()
	if err != nil {
		return fn()
	}
	if c == nil {
		t.Forked()
		f.parentDepth = 1 << 30 // no snapshots while describing
		leave(fn())
	}
	o := c.wait(f.stall, nil)
	if !o.ok() {
		t.Note(fmt.Sprintf("checkpoint: the child describing a finding %s", o))
		return nil
	}
	return o.data
}

// measured caches the cost of a fork, which grows with the memory the
// process maps: it is measured again when that has changed by half.
var measured struct {
	cost, page time.Duration
	rss        int64
}

// settledHazards is hazards, looked at again for up to 10 ms while the
// only ones are goroutines in a system call: a short one (a stat, a read
// of a file) ends by itself, and then the goroutine waits for the one P
// (GOMAXPROCS is 1 here), which is no hazard. The test binary's own
// watcher (it stats the command's stop file every tenth of a second) made
// a test fall back to re-running now and then.
func settledHazards() []string {
	h := hazards()
	for try := 0; try < 10 && len(h) > 0 && onlySyscalls(h); try++ {
		time.Sleep(time.Millisecond)
		h = hazards()
	}
	return h
}

func onlySyscalls(h []string) bool {
	for _, w := range h {
		if !strings.HasPrefix(w, inSyscall) {
			return false
		}
	}
	return true
}

// forkCost returns the cost of a fork and of each page its child writes.
func forkCost() (fork, page time.Duration) {
	rss := residentPages()
	if measured.cost == 0 || rss > measured.rss*3/2 || rss < measured.rss*2/3 {
		measured.cost, measured.page = measureFork()
		measured.rss = rss
	}
	return measured.cost, measured.page
}

// unsafe says why this process cannot fork at all, or "".
func (f *Fork) unsafe() string {
	if !forkSupported {
		return "fork checkpoints need Linux"
	}
	if err := setupShared(); err != nil {
		return err.Error()
	}
	return ""
}

func (f *Fork) summarize(t Target, forks, snaps, hangs int64) {
	what := "fork: a zygote before the test body"
	if f.auto {
		what = "auto, after the hand-over: a zygote before the test body"
	}
	t.Note(fmt.Sprintf("checkpoint %s; %d processes forked, %d branch-point snapshots (a fork costs %v here)", what, forks, snaps, f.forkCost.Round(time.Microsecond)))
	if hangs > 0 {
		t.Note(fmt.Sprintf("checkpoint: %d forked children hung and were killed", hangs))
	}
}
