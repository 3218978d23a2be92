package engine

import (
	"bytes"
	"context"
	"fmt"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
	"math/bits"
	randv1 "math/rand"
	randv2 "math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/deadlock"
	"github.com/xbtest/xbtest/scheduler/internal/location"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/vclock"
	"github.com/xbtest/xbtest/settings"
)

// One execution ("run") of a test body under the scheduler.
//
// Every goroutine of the body is a real goroutine, but exactly one of them
// runs at a time: the others sleep on their wake channel. Switching hands a
// token from the running goroutine to the next one. The explorer's code runs
// inline, on whichever controlled goroutine reached a scheduling point, so a
// hook that does not switch costs a function call.
//
// An execution first replays a prefix of recorded decisions (the path to the
// branch point being explored), then the explorer steers it. It ends when the
// explorer's enabled set is empty, when a thread cannot acquire a lock (the
// thesis aborts the block and backs up), or on a failure that ends a test
// (t.Fatal, a panic). The driver then tears it down: every goroutine still
// alive is woken and unwinds with a teardown panic, running its deferred
// calls, before the next execution starts. The goroutines themselves are
// pooled workers reused by later executions.

// active is the execution under way in this process, if any. Hooks called
// when there is none (package initialisation, code outside xbtest) behave
// like the sync, channel and atomic operations they replace.
var active atomic.Pointer[run]

// concurrent is the active execution once it has a second goroutine (nil
// before): memory hooks have nothing to do until then (see Read). hot is
// concurrent != nil, cheaper to test in the inlined hooks.
var (
	concurrent atomic.Pointer[run]
	hot        atomic.Bool
)

var epochs atomic.Uint64

// tainted is set when a goroutine of an execution could not be stopped (it
// is blocked in code xbtest does not control); no further exploration is
// safe in this process.
var tainted atomic.Pointer[string]

type threadStatus uint8

const (
	stRunnable threadStatus = iota // at a scheduling point, can be resumed
	stWaiting                      // parked on a Cond, channel, WaitGroup... until woken
	stExited
)

// thread is one controlled goroutine of an execution.
type thread struct {
	r      *run
	idx    int32 // creation index: the explorer's name for the thread
	parent *thread
	ord    int32 // 1-based position among its parent's children
	nkids  int32
	fn     func()
	g      uintptr
	w      *worker // the pooled goroutine running it, once started

	started  bool
	returned bool
	goexit   bool // it called runtime.Goexit: its goroutine ends whatever else happens
	gone     bool // the goroutine has finished
	status   threadStatus
	frozen   bool   // stopped by the step bound
	on       string // what a waiting thread waits for, for reports
	onObj    int32  // the object it waits on (-1: none)
	steps    int64
	wroteAt  int64 // steps when it last wrote shared memory (tooManySteps)
	// readSpread has a bit set, by a hash, for each word it has read since
	// it last wrote (tooManySteps: a loop that reads many words is no spin).
	readSpread uint64
	tickedAt   int64 // steps when virtual time last advanced (heldBack)
	allocs     int32 // heap objects registered so far (names them, see package location)

	lastLock *lockState // the last lock it released (reverse lock chain analysis)
	held     []*lockState

	wait   waitResult // filled in by whoever wakes the thread
	joiner *thread    // a parent waiting for this thread to end (T.Run)
	bubble *bubble    // its testing/synctest bubble, or nil (synctest.go)
	lastE  int64      // event number of its last event
	pcs    []uintptr  // trace mode: the call stack at its last event
	tt     Test       // the test handle of the test goroutine

	// What a dump of its stack names as its creator (stacks.go): the
	// calls that started it, or package testing's T.Run for a subtest.
	spawnPCs [4]uintptr
	nSpawn   int8
	subtest  bool

	// Store buffers (package storebuf): the goroutine's buffers, and for
	// a flush pseudo-thread the buffer it commits.
	sb       storebuf.Goroutine
	unfenced bool // the current event is a buffered access or a loop step: no drain
	flushOf  *storebuf.Buf
	isClock  bool // the virtual clock's pseudo-thread (vclock, eager.go)
}

// waitResult is what a waking thread hands a parked one.
type waitResult struct {
	woken bool
}

func (t *thread) id() string {
	if t.flushOf != nil {
		return t.r.bufName(t.flushOf)
	}
	if t.isClock {
		return "clock"
	}
	if t.parent == nil {
		return "T0"
	}
	return t.parent.id() + "." + strconv.Itoa(int(t.ord))
}

// threadOf is the thread with creation index i, nil for -1.
func (r *run) threadOf(i int32) *thread {
	if i < 0 {
		return nil
	}
	return r.threads[i]
}

// idxOf is t's creation index, -1 for nil.
func idxOf(t *thread) int32 {
	if t == nil {
		return -1
	}
	return t.idx
}

// threadAt returns the thread with creation index i (nil if there is none
// yet).
func (r *run) threadAt(i int32) *thread {
	if int(i) >= len(r.threads) {
		return nil
	}
	return r.threads[i]
}

// bufName names a store buffer in reports.
func (r *run) bufName(b *storebuf.Buf) string {
	return r.threads[b.Owner()].id() + " store buffer"
}

// EndReason is how an execution ended.
type EndReason uint8

const (
	EndNone     EndReason = iota
	EndPath               // the enabled set became empty
	EndAbort              // a lock could not be acquired: back up to RetPt
	EndFailure            // t.Fatal or a panic ended the test
	EndReplay             // a trace replay reached the end of its schedule
	EndDiverged           // a replayed prefix did not reproduce
	EndInternal           // an error of xbtest itself
	EndRestart            // the exploration must start over (a TryLock was discovered)
	EndBound              // exploration was asked to stop (-timeout, interrupt)
)

type run struct {
	strat     sched.Strategy // the exploration strategy: the engine reaches it only through its events
	guide     *Guide         // a guided execution's schedule (package guide), or nil
	known     *Learnt        // what the exploration learnt about block boundaries (locks.go)
	stats     *Stats
	dd        bool // deadlock detection (ExitBlock-DD, Brute; deadlock.go)
	restart   bool // the exploration must start over, knowing more (locks.go)
	cfg       *Config
	trace     bool   // cfg.Trace, read at every event
	gcAtStart uint64 // gcCycles when the execution started
	maxSteps  int64  // cfg.MaxSteps
	mem       settings.Memory
	access    bool // every shared access is a block boundary
	epoch     uint64
	body      Body
	name      string
	number    int // the schedule this execution explores, 1-based

	// brute: every synchronization operation starts with a branch point;
	// opsSince counts the operations since the last scheduling point
	// (brute.go).
	brute    bool
	opsSince int
	// accessed: at access granularity, a shared access started a block
	// since the last scheduling point (opPoint).
	accessed bool

	threads []*thread
	spare   []*thread   // thread structs of earlier executions, reused
	multi   bool        // a second goroutine exists (see Read)
	multiA  atomic.Bool // multi, for the watchdog
	cur     *thread
	events  int64
	beat    atomic.Int64

	// Fork checkpoints: snapshots is set when the backer may keep the
	// program state at branch points; started is when this process
	// started (or took over) the execution, to weigh a replay against a
	// fork.
	snapshots bool
	started   time.Time
	drv       checkpoint.Target
	resumed   atomic.Int64 // bumped when a forked child takes over, or while a real wait is progress (native.go)

	replay  []decision
	k       int // the decision being replayed
	choiceN int // choice points replayed within it
	// redirectChoices: how many choices of the decision before a
	// redirected child's new prefix the snapshot had taken (its block's
	// and its tick's); -1 if all (the snapshot was taken while exploring)
	redirectChoices int
	exploring       bool
	traceOnly       bool           // replay for a report: stop at the end of the prefix
	stepAt          []result.Block // trace replay: where and how each replayed block ended
	bpoints         int            // scheduling points of the block under way (once a second goroutine exists)

	done     chan struct{}
	ack      chan struct{}
	finished bool
	why      EndReason
	dead     atomic.Bool

	heap location.Index
	sync syncTables     // the locks' states (locks.go)
	objs []ObjectTables // the drop-in objects' states, by Slot (packages syncobj and chanobj, primitives.go)
	nobj int32

	rand1 *randv1.Rand // this execution's math/rand source (see rand.go)
	rand2 *randv2.Rand
	seeds uint64 // maphash seeds made (rand.go)

	natives []*nativeWait // goroutines waiting on channels xbtest does not control (native.go)
	bubbles []*bubble     // live testing/synctest bubbles (synctest.go)

	clock     vclock.Clock[timerAction]              // virtual time (package vclock, clock.go)
	deadlocks deadlock.Detector[*thread, *lockState] // deadlock detection (package deadlock, deadlock.go)

	findings []*Finding
	bound    checkpoint.Stop // why the execution ended early (EndBound)

	race     races.Races      // race detection (package races, hosts.go: raceHost)
	buf      storebuf.Buffers // store buffers (package storebuf, hosts.go: bufHost)
	warnings []string
	notes    []string // for -v: what the result's Notes say (unprotected locations)
	gaveWay  int      // threads made to give way by the fairness bound
	changed  string   // package state the execution changed that the fingerprint may not see
	internal string
	skipped  bool
	failed   bool
	t0       Test
	begin    func(Test) // beginTest, as Body takes it
}

// reset prepares r for a new execution. Executions of one exploration reuse
// the same run, threads and registries, so that steady-state exploration
// allocates little.
//
// s, g, known and stats are the exploration's: its strategy, the schedule a
// guided execution follows (nil when exploring), what it learnt about block
// boundaries and where it counts paths.
func (r *run) reset(s sched.Strategy, g *Guide, known *Learnt, stats *Stats, cfg *Config, name string, body Body, replay []decision) {
	if r.done == nil {
		r.done = make(chan struct{}, 1)
		r.ack = make(chan struct{})
	}
	r.strat, r.guide, r.known, r.stats = s, g, known, stats
	if g != nil {
		g.Record(cfg.Trace)
	}
	s.NewExecution()
	r.dd, r.restart = cfg.Algorithm.DetectsDeadlocks(), false
	r.cfg, r.name, r.body, r.replay = cfg, name, body, replay
	r.trace, r.maxSteps = cfg.Trace, cfg.MaxSteps
	r.mem, r.access = cfg.Memory, cfg.Granularity == settings.Access
	r.brute, r.opsSince, r.accessed = cfg.Brute, 0, false
	r.epoch = epochs.Add(1)
	r.number = 0
	r.threads = r.threads[:0]
	r.multi = false
	r.multiA.Store(false)
	r.cur = nil
	r.events = 0
	r.beat.Store(0)
	r.k, r.choiceN = 0, 0
	r.exploring, r.traceOnly = false, false
	r.stepAt = nil
	r.bpoints = 0
	r.snapshots = false
	r.finished, r.why = false, EndNone
	r.dead.Store(false)
	r.heap.Reset(heapCycles())
	r.sync.reset()
	for _, o := range r.objs {
		if o != nil {
			o.Reset()
		}
	}
	r.nobj = 0
	r.rand1, r.rand2, r.seeds = nil, nil, 0
	resetCryptoRand()
	r.clock.NewExecution(clockHost{r}, cfg.Timers.Horizon(), cfg.FairBlocks)
	clear(r.natives)
	r.natives = r.natives[:0]
	clear(r.bubbles)
	r.bubbles = r.bubbles[:0]
	r.findings = r.findings[:0]
	r.bound = checkpoint.NoStop
	r.warnings = r.warnings[:0]
	r.notes = r.notes[:0]
	r.gaveWay = 0
	r.changed = ""
	r.internal = ""
	r.skipped, r.failed = false, false
	r.t0 = nil
	r.race.Reset(cfg.Race, raceHost{r}, cfg.Trace)
	bufHost{r}.reset()
	r.deadlocks.NewExecution(deadlockHost{r})
}

// runBody is the test goroutine's function.
func (r *run) runBody() {
	if r.begin == nil {
		r.begin = r.beginTest // once: executions reuse the run, and a new func value each would allocate
	}
	r.body(Exec{r}, r.name, r.begin)
}

// beginTest keeps the top-level test's handle, before its function
// starts: the test goroutine is the running one.
func (r *run) beginTest(tt Test) { r.t0, r.cur.tt = tt, tt }

func (r *run) newThread(parent *thread, fn func()) *thread {
	var t *thread
	if n := len(r.threads); n < len(r.spare) {
		t = r.spare[n]
		held, pcs, sb := t.held[:0], t.pcs[:0], t.sb.Reused()
		*t = thread{held: held, pcs: pcs, sb: sb}
	} else {
		t = new(thread)
		r.spare = append(r.spare, t)
	}
	t.r, t.idx, t.parent, t.fn, t.onObj = r, int32(len(r.threads)), parent, fn, -1
	t.sb.Idx = t.idx
	r.clock.Started(t.idx)
	if !r.multi && len(r.threads) > 0 {
		r.multi = true
		r.multiA.Store(true)
		concurrent.Store(r)
		hot.Store(true)
	}
	if parent != nil {
		parent.nkids++
		t.ord = parent.nkids
		if parent.bubble != nil {
			parent.bubble.join(t)
		}
	}
	r.threads = append(r.threads, t)
	return t
}

// enter identifies the calling goroutine for a hook. It returns nil, nil
// when no execution is under way (the hook then behaves natively). A
// goroutine of an execution being torn down unwinds. A goroutine that is not
// the running controlled one means instrumented code was reached from a
// goroutine xbtest does not control: that is reported and the execution
// ends.
func enter() (*run, *thread) {
	r := active.Load()
	if r == nil {
		return nil, nil
	}
	t := r.cur
	if t.g != getg() && r.foreign() {
		return nil, nil
	}
	if r.dead.Load() {
		panic(teardown{})
	}
	return r, t
}

// runtimeOwned reports whether the calling goroutine is one the runtime
// runs user code on: finalizers (runtime.SetFinalizer) and cleanups
// (runtime.AddCleanup).
func runtimeOwned() bool {
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	for _, fn := range []string{"runtime.runFinalizers(", "runtime.runfinq(", "runtime.runCleanups("} {
		if bytes.Contains(buf, []byte("\n"+fn)) {
			return true
		}
	}
	return false
}

// foreign handles a hook called by a goroutine that is not the running
// controlled goroutine. A finalizer or cleanup the runtime runs (on an
// object of this or an earlier execution) is not one of the test's
// goroutines: it behaves as outside any execution (foreign returns true);
// so does a goroutine started outside any execution, once it is let go
// (outside.go).
// Any other cannot be attributed to a thread, so the execution cannot
// continue; the goroutine is parked until the process ends.
func (r *run) foreign() (native bool) {
	if holdOutside() || runtimeOwned() {
		return true
	}
	msg := "instrumented code was called from a goroutine xbtest does not control " +
		"(started by code that is not instrumented, e.g. a library); instrument that package with -instrument\n" +
		string(debug.Stack())
	tainted.CompareAndSwap(nil, &msg)
	select {}
}

// event counts one scheduling event of t: every hook call is one. Events
// number the points where recorded blocks end, so a replayed prefix stops at
// exactly the same place.
func (r *run) event(t *thread) {
	if t.sb.Pending != 0 && !t.unfenced {
		r.buf.Fence(&t.sb) // a synchronization operation is a fence (package storebuf)
	}
	r.events++
	if r.multi && !t.isClock {
		// The bound is on scheduling: a test's sequential set-up before it
		// starts a goroutine is not bounded (go test's -timeout is). The
		// clock fires timers, one per step: what they wake is bounded.
		t.steps++
	}
	t.lastE = r.events
	if r.events&255 == 0 {
		r.beat.Store(r.events)
		checkpoint.Beat()
		if s := checkpoint.StopRequested(); s != checkpoint.NoStop && r.stoppable() {
			r.stopped(t, s)
		}
		if (r.guide != nil || r.traceOnly) && !r.cfg.DescribeUntil.IsZero() && time.Now().After(r.cfg.DescribeUntil) {
			r.stopped(t, checkpoint.StopTime)
		}
	}
	if r.trace {
		t.record()
		if r.traceOnly && r.k == len(r.replay)-1 {
			if d := &r.replay[r.k]; d.Mid && r.events == d.End {
				r.stepAt[r.k] = guideHost{r}.anchor(t, ptBoundary)
				r.stepAt[r.k].Preempt, r.stepAt[r.k].Mid = false, true
				r.end(EndReplay)
				t.sleep()
			}
		}
	}
	if r.maxSteps > 0 && t.steps > r.maxSteps && !t.frozen {
		r.tooManySteps(t)
	}
	if !r.exploring && r.k < len(r.replay) && r.events > r.replay[r.k].End {
		// A replayed block went past the event it ended at without
		// reaching a scheduling point (it computes or spins differently):
		// stop now, not when it next reaches one, which may be never.
		r.diverged(t, fmt.Sprintf("block %d of %s was to end at event %d, but the goroutine went on without a scheduling point", r.k, r.threads[r.replay[r.k].Thread].id(), r.replay[r.k].End))
	}
}

// bufferedEvent counts the event of a buffered access (which is no fence)
// and returns the running goroutine; nil for a finalizer's access, which is
// made natively (see foreign).
func (r *run) bufferedEvent() *thread {
	t := r.cur
	if t.g != getg() && r.foreign() {
		return nil
	}
	if r.dead.Load() {
		panic(teardown{})
	}
	t.unfenced = true
	r.event(t)
	t.unfenced = false
	return t
}

// record keeps t's call stack at its current event (trace mode only).
func (t *thread) record() {
	if cap(t.pcs) < 32 {
		t.pcs = make([]uintptr, 32)
	}
	t.pcs = t.pcs[:cap(t.pcs)]
	n := runtime.Callers(3, t.pcs)
	t.pcs = t.pcs[:n]
}

// faultHook, when set (tests only), runs at every scheduling point: it
// injects faults into the scheduler itself.
var faultHook func()

// pointKind tells what kind of scheduling point a thread reached.
type pointKind uint8

const (
	ptBoundary pointKind = iota // a lock exit or an operation that counts as one
	ptPark                      // the thread waits: its block ends
	ptExit                      // the thread died
	ptSpawn                     // the thread started a goroutine
	ptWake                      // the thread woke a waiter that can run at once (a Cond signalled without its lock)
	ptFreeze                    // the thread exceeded the step bound
	ptYield                     // runtime.Gosched: a boundary that gives way (internal/exitblock, "Fairness")
	// ptPass: a read lock of an RWMutex not known to be write-locked too
	// (locks.go, "A waiting writer"). It ends no block while exploring, but
	// counts as a scheduling point of schedules, so that a schedule recorded
	// when the lock was known to be (the point ended a block, or was passed
	// by one) is followed by a guided execution that has not learnt it yet.
	ptPass
)

// point is called at every place where an atomic block may end. It returns
// the thread to run next (t itself if the block continues), or nil if the
// path has ended.
func (r *run) point(t *thread, kind pointKind) *thread {
	if faultHook != nil {
		faultHook()
	}
	if kind != ptPass {
		t.sb.Boundary() // package storebuf
	}
	r.opsSince, r.accessed = 0, false
	if len(r.natives) > 0 {
		var parking *thread
		if kind == ptPark {
			parking = t
		}
		r.pollNative(parking)
	}
	r.clock.Sync(t.idx)
	if r.exploring {
		if r.guide != nil {
			return guideHost{r}.point(t, kind)
		}
		if kind == ptPass {
			return t
		}
		return r.dispatch(t, kind)
	}
	d := &r.replay[r.k]
	if r.multi {
		r.bpoints++
	}
	if r.events != d.End {
		if kind == ptPark || kind == ptExit || kind == ptFreeze || r.events > d.End {
			r.diverged(t, fmt.Sprintf("block %d of %s was to end at event %d, but the goroutine reached a scheduling point at event %d", r.k, r.threads[d.Thread].id(), d.End, r.events))
		}
		return t
	}
	// A tick follows the block if the goroutine that runs next cannot run
	// (see package vclock); its choices are recorded after the block's.
	last := r.k == len(r.replay)-1
	switch {
	case !last:
		r.clock.CatchUp(t.idx, r.replay[r.k+1].Thread, len(r.natives) > 0)
	case !r.traceOnly:
		r.clock.CatchUp(t.idx, r.strat.StartThread(), len(r.natives) > 0)
		if r.choiceN < len(d.Choices) {
			if cut := r.strat.Retick(r.choiceN); cut != nil {
				d = cut
			}
		}
	}
	if r.choiceN != len(d.Choices) && !(last && r.traceOnly) {
		r.diverged(t, fmt.Sprintf("block %d made %d choices, %d recorded", r.k, r.choiceN, len(d.Choices)))
	}
	if r.stepAt != nil {
		r.stepAt[r.k] = guideHost{r}.anchor(t, kind)
	}
	r.bpoints = 0
	r.k++
	r.choiceN = 0
	if r.snapshots && r.k < len(r.replay) {
		// A branch point on the way to the next start (the state after
		// r.k decisions): a fork checkpoint may keep it. A redirected
		// child replays toward another start from here.
		r.offerSnapshot(r.k)
	}
	if r.k == len(r.replay) {
		if r.traceOnly {
			r.end(EndReplay)
			return nil
		}
		r.exploring = true
		return r.threadOf(r.strat.Begin(stratHost{r}))
	}
	n := r.replay[r.k].Thread
	if int(n) >= len(r.threads) || r.threads[n].status != stRunnable || r.threads[n].frozen {
		r.diverged(t, fmt.Sprintf("decision %d names goroutine %d, which cannot run", r.k, n))
	}
	r.clock.BlockStarted(n)
	return r.threads[n]
}

// dispatch hands a scheduling point to the explorer.
func (r *run) dispatch(t *thread, kind pointKind) *thread {
	switch kind {
	case ptBoundary:
		return r.threadOf(r.strat.Boundary())
	case ptYield:
		return r.threadOf(r.strat.Yielded())
	case ptPark:
		return r.threadOf(r.strat.Park())
	case ptExit:
		return r.threadOf(r.strat.Exit())
	case ptFreeze:
		return r.threadOf(r.strat.Freeze())
	}
	return t
}

// offerSnapshot offers the backer the program state after d decisions.
func (r *run) offerSnapshot(d int) checkpoint.Resume {
	res := r.cfg.Backer.AtBranchPoint(r.drv, d, time.Since(r.started))
	if res != checkpoint.Stay {
		r.resumed.Add(1)
	}
	switch res {
	case checkpoint.Continue:
		r.started = time.Now()
	case checkpoint.Redirect:
		// This process is a new child of the snapshot: the explorer's
		// path and start are those the snapshot received from its last
		// child. Replay from d toward the start.
		r.started = time.Now()
		r.redirectChoices = -1
		if !r.exploring && d > 0 && d <= len(r.replay) {
			r.redirectChoices = len(r.replay[d-1].Choices)
		}
		r.replay = r.strat.ReplayPrefix()
		r.k, r.choiceN = d, 0
		r.number = r.stats.Schedules + 1
	}
	return res
}

// redirected continues a redirected execution at the top of the explorer's
// loop: either the start is right here, or a prefix remains to replay.
func (r *run) redirected() *thread {
	if r.k == len(r.replay) {
		return r.threadOf(r.strat.Begin(stratHost{r}))
	}
	r.exploring = false
	n := r.replay[r.k].Thread
	if r.k > 0 {
		// The snapshot caught up with the clock for the path it was
		// taken on (a tick follows a block if the goroutine that runs
		// next cannot run; see package vclock); the new path's next
		// goroutine may need time to pass. The tick's choices are the
		// decision before's, after those the snapshot took.
		prev := len(r.replay[r.k-1].Choices)
		taken := r.redirectChoices
		if taken < 0 || taken > prev {
			taken = prev
		}
		r.k, r.choiceN = r.k-1, taken
		r.clock.CatchUp(idxOf(r.cur), n, len(r.natives) > 0)
		if r.choiceN != prev {
			r.diverged(r.cur, fmt.Sprintf("block %d made %d choices, %d recorded", r.k, r.choiceN, prev))
		}
		r.k, r.choiceN = r.k+1, 0
	}
	if int(n) >= len(r.threads) || r.threads[n].status != stRunnable || r.threads[n].frozen {
		r.diverged(r.cur, fmt.Sprintf("decision %d names goroutine %d, which cannot run", r.k, n))
	}
	r.clock.BlockStarted(n)
	return r.threads[n]
}

// choice returns the option taken at a notify or select choice point.
func (r *run) choice(t *thread, options []int32) int32 {
	if len(options) == 1 {
		// One option is no choice; it is not recorded.
		return options[0]
	}
	if !r.exploring {
		d := &r.replay[r.k]
		if r.choiceN >= len(d.Choices) || !slices.Contains(options, d.Choices[r.choiceN]) {
			r.diverged(t, "a recorded notify or select choice is not available")
		}
		c := d.Choices[r.choiceN]
		r.choiceN++
		return c
	}
	if g := r.guide; g != nil {
		c, ok, recorded := g.Choice(options)
		if recorded && !ok {
			guideHost{r}.diverged(t, g.ChoiceMismatch(t.id(), srcpos.Caller(2)))
		}
		if recorded {
			r.strat.Chosen(c)
			return c
		}
	}
	c, ok := r.strat.Choose(options)
	if !ok {
		r.diverged(t, "a re-executed block offered other notify or select choices")
	}
	return c
}

// transfer hands control to next after a scheduling point of t.
func (r *run) transfer(t, next *thread) {
	switch {
	case next == t:
	case next == nil:
		r.endPath()
		t.sleep()
	default:
		r.switchTo(t, next)
	}
}

// yield is the common tail of an operation that is a block boundary.
func (r *run) yield(t *thread) { r.transfer(t, r.point(t, ptBoundary)) }

// parkHere blocks t (already marked waiting on something) until another
// thread wakes it and the explorer schedules it.
func (r *run) parkHere(t *thread, on string, obj int32) {
	t.status = stWaiting
	t.on, t.onObj = on, obj
	t.wait = waitResult{}
	if r.trace && t.flushOf == nil && !t.isClock {
		r.guide.TracePark(t.idx, t.id(), on)
	}
	next := r.point(t, ptPark)
	if next == t && t.status != stRunnable { // a tick may wake t itself (it sleeps alone)
		r.internalError(t, "a waiting goroutine was scheduled")
	}
	r.transfer(t, next)
}

// wakeUp makes a waiting thread runnable; relock is the lock it must take
// again (a Cond waiter) if that lock is held, else -1.
func (r *run) wakeUp(w *thread, relock int32) {
	if !r.clock.Woken(w.idx) {
		r.race.Edge(idxOf(r.cur), w.idx)
	}
	if r.trace {
		r.guide.TraceWake(w.idx, r.waker())
	}
	w.status = stRunnable
	w.on, w.onObj = "", -1
	w.wait.woken = true
	if r.exploring {
		r.strat.Woken(w.idx, relock)
	}
}

// waker names who wakes a goroutine now, for the timeline: the running
// goroutine, or the clock.
func (r *run) waker() string {
	if r.clock.Ticking() || r.cur == nil || r.cur.isClock {
		return "clock"
	}
	return r.cur.id()
}

func (r *run) switchTo(from, to *thread) {
	r.cur = to
	r.beat.Store(r.events)
	r.resume(to)
	from.sleep()
}

func (r *run) resume(t *thread) {
	if !t.started {
		t.started = true
		t.w = getWorker()
		t.w.job = t
	}
	t.w.wake <- struct{}{}
}

// sleep parks the calling goroutine until it is resumed. A goroutine woken
// to tear its execution down unwinds.
func (t *thread) sleep() {
	<-t.w.wake
	if t.r.dead.Load() {
		panic(teardown{})
	}
}

// teardown is the panic that unwinds a goroutine of an execution that has
// ended. Unlike runtime.Goexit it leaves the pooled goroutine alive. User
// code that recovers it and goes on reaches another hook and unwinds again.
type teardown struct{}

// worker is a pooled goroutine that runs controlled threads, one after the
// other. Reusing goroutines saves their creation and, above all, the growth
// of their stacks, which a fresh goroutine pays in every execution.
type worker struct {
	g    uintptr
	goid int64 // its goroutine number (stacks.go)
	wake chan struct{}
	job  *thread
}

var workers struct {
	sync.Mutex
	free []*worker
}

func getWorker() *worker {
	workers.Lock()
	if n := len(workers.free); n > 0 {
		w := workers.free[n-1]
		workers.free = workers.free[:n-1]
		workers.Unlock()
		return w
	}
	workers.Unlock()
	w := &worker{wake: make(chan struct{}, 1)}
	ownGoroutines.Add(1) // before the go statement: NumGoroutine counts it from there
	go w.loop()
	return w
}

func putWorker(w *worker) {
	w.job = nil
	workers.Lock()
	workers.free = append(workers.free, w)
	workers.Unlock()
}

func (w *worker) loop() {
	defer ownGoroutines.Add(-1) // ended by a runtime.Goexit of the thread it ran
	w.g = getg()
	w.goid = curGoid()
	internalGoroutines.Store(w.goid, true)
	for {
		// A pooled goroutine carries no profiler labels of its own: it
		// inherits those of the goroutine that made it (a test body in
		// pprof.Do), and a goroutine of the program may set some and
		// end without restoring them.
		pprof.SetGoroutineLabels(context.Background())
		<-w.wake
		t := w.job
		t.g = w.g
		w.run(t)
	}
}

// run runs one thread's function; the deferred finish decides what its end
// means. A runtime.Goexit (t.FailNow) ends the worker's goroutine too.
func (w *worker) run(t *thread) {
	defer t.finish()
	t.fn()
	t.returned = true
}

// finish runs when the thread's function returns, panics or calls
// runtime.Goexit.
func (t *thread) finish() {
	r := t.r
	if collectable {
		t.fn = nil // what it holds may be collected, as after a goroutine's end in Go
	}
	p := recover()
	defer r.guard(t)
	if r.dead.Load() {
		t.gone = true
		if t.returned || p != nil && !t.goexit {
			putWorker(t.w) // unwound by a teardown panic or returned: reusable
		}
		r.ack <- struct{}{}
		return
	}
	if p != nil {
		stack := debug.Stack()
		if ie, ok := p.(internalPanic); ok {
			r.internal = string(ie)
		} else if isInternalFault(p, stack) {
			r.internal = fmt.Sprintf("internal error: %v\n%s", p, stack)
		} else {
			r.panicked(t, p, stack)
		}
		t.gone = true
		if !t.goexit {
			putWorker(t.w)
		}
		r.end(EndFailure)
		return
	}
	if !t.returned && t.tt != nil && t.tt.FailedNow() && t.idx == 0 {
		// t.FailNow on the test goroutine ends the test, as in go test.
		t.gone = true
		r.end(EndFailure)
		return
	}
	r.exitThread(t)
}

// guard turns a panic of the scheduler's own code, run outside any user
// frame (a goroutine's end), into an internal error that ends the
// execution.
func (r *run) guard(t *thread) {
	p := recover()
	if p == nil {
		return
	}
	if _, ok := p.(teardown); ok {
		// Torn down while the scheduler was handling its end (it had
		// stopped for a divergence or a bound).
		t.gone = true
		if !t.goexit {
			putWorker(t.w)
		}
		r.ack <- struct{}{}
		return
	}
	r.internal = fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())
	t.gone = true
	if !r.finished {
		r.end(EndInternal)
	}
}

// exitThread handles the death of t: an event, then a scheduling point that
// ends its block.
func (r *run) exitThread(t *thread) {
	r.event(t)
	t.status = stExited
	if t.joiner != nil {
		r.wakeUp(t.joiner, -1)
	}
	if t.bubble != nil {
		r.bubbleExit(t)
	}
	next := r.point(t, ptExit)
	t.gone = true
	if t.returned {
		putWorker(t.w) // before resuming anyone: the pool is touched by the running goroutine only
	}
	switch {
	case next == nil:
		r.endPath()
	case r.finished:
	default:
		r.cur = next
		r.beat.Store(r.events)
		r.resume(next)
	}
}

// end finishes the execution; the caller must then stop running controlled
// code (sleep, or return from its goroutine).
func (r *run) end(why EndReason) {
	if r.finished {
		return
	}
	r.finished = true
	r.why = why
	r.done <- struct{}{}
}

// endPath is LOOP's "if (enabled is empty)": the path is complete.
func (r *run) endPath() {
	if r.finished {
		return
	}
	if r.exploring && r.shardCut() {
		r.end(EndPath) // another shard's subtree (a Cutter, drive.go)
		return
	}
	if r.exploring {
		r.stats.Schedules++
		if r.dd {
			if f, key, internal := r.deadlocks.Stuck(); internal != "" {
				r.internal = internal
			} else if f != nil {
				r.addFinding(f, key)
			}
		}
		if r.cfg.OnPath != nil && r.guide == nil { // not minimisation's executions
			r.cfg.OnPath(r.strat.CurrentPath(), r.strat.DelayedCount())
		}
	}
	r.end(EndPath)
}

// shardCut reports whether the execution under way ended where its path
// crossed into another shard's subtree (a Cutter's Cut).
func (r *run) shardCut() bool {
	if !r.cfg.Shard.Active() && r.cfg.Team == nil {
		return false
	}
	c, ok := r.strat.(Cutter)
	return ok && c.Cut()
}

// tooManySteps stops t for good: it exceeded the step bound.
func (r *run) tooManySteps(t *thread) {
	t.frozen = true
	pos := srcpos.Caller(3)
	// A bound: what the goroutine would do next is not explored. And a
	// finding (a goroutine that never terminates is a bug go test hangs
	// on), unless another goroutine could have run meanwhile: Go's
	// scheduler would have run it, and it may be what the loop waits for.
	//
	// And only if it no longer changes anything: a goroutine that wrote
	// shared memory in the last half of the bound may be a long loop that
	// ends (a consumer draining 100,000 items), which go test would just
	// wait for; that is a bound, said on the test's line. One that only
	// reads while nothing else can run never sees a change: it waits for
	// a value that cannot come, unless xbtest holds it back (heldBack), or
	// unless what changes is its own (traverses).
	r.warn(fmt.Sprintf("goroutine %s was stopped after %d scheduling steps in one execution: what it does after that is not explored", t.id(), r.cfg.MaxSteps))
	if r.exploring && r.strat.OthersCanRun(t.idx) || t.steps-t.wroteAt < r.cfg.MaxSteps/2 || r.heldBack(t) || traverses(t) {
		next := r.point(t, ptFreeze)
		if next == t {
			r.internalError(t, "a frozen goroutine was scheduled")
		}
		r.transfer(t, next)
		t.sleep()
	}
	timers := "no timer was pending"
	if r.clock.CanFire() {
		timers = "virtual time passed meanwhile"
	}
	r.addFinding(&result.Finding{Kind: result.NonTermination, Pos: pos,
		Message:    fmt.Sprintf("goroutine %s exceeded %d scheduling steps in one execution (-max-steps), the last %d without writing shared memory while no other goroutine could run and %s: it may not terminate", t.id(), r.cfg.MaxSteps, t.steps-t.wroteAt, timers),
		Goroutines: []result.Goroutine{{ID: t.id(), State: "running", Pos: pos}}}, "nontermination|"+deadlock.FuncSite(t.fn))
	next := r.point(t, ptFreeze)
	if next == t {
		r.internalError(t, "a frozen goroutine was scheduled")
	}
	r.transfer(t, next)
	t.sleep()
}

// heldBack reports whether what a looping t may wait for is held back by
// xbtest, not by the program: a goroutine the step bound stopped while it
// still wrote shared memory (Go would go on running it; one that only read
// cannot change what t reads), or a pending timer (real time passes while
// t loops, and Go fires the timer; the virtual clock moves only when no
// goroutine can run). jackc/puddle's stress tests loop until a
// time.AfterFunc of a second closes their channel.
//
// A timer counts only if time has not passed since t last wrote: goroutines
// that poll together let it pass (internal/exitblock, "Polling together"),
// and a loop that has seen the clock move without changing anything (nine
// workers polling a flag nobody sets, with a pool's ticker beating: ants's
// TestNonblockingSubmit) waits for more than time.
func (r *run) heldBack(t *thread) bool {
	if r.clock.CanFire() && t.tickedAt <= t.wroteAt {
		return true
	}
	for _, u := range r.threads {
		if u != t && u.frozen && u.status == stRunnable && u.steps-u.wroteAt < r.cfg.MaxSteps/2 {
			return true
		}
	}
	return false
}

// computing reports whether a goroutine the step bound stopped could run
// and was still writing shared memory in the last half of the bound: a
// long loop that Go would go on running (otter's completes: 5000 writes,
// awaited with a 30-second time.After), not one waiting for others, which
// polls (heldBack's other goroutines). Virtual time does not pass then
// (stratHost.Tick): it passes only when no goroutine can run, and a
// time-out firing while this one has yet to finish is no real execution's
// (the explorer's loop says the same of a delayed thread). The path ends
// instead, with no verdict (deadlock's Stuck).
func (r *run) computing() bool {
	for _, u := range r.threads {
		if u.frozen && u.status == stRunnable && u.steps-u.wroteAt < r.cfg.MaxSteps/2 {
			return true
		}
	}
	return false
}

// traverses reports whether t read many different words since it last
// wrote: a long loop over a table (otter's map test, 100,000 rounds of Get
// over 100 keys, all loads) whose progress is its own local variables,
// which xbtest does not see, not a wait for a value: that is a bound. A
// goroutine that waits by polling reads the same few words, or scans a
// few flags, over and over.
func traverses(t *thread) bool { return bits.OnesCount64(t.readSpread) >= traversalWords }

// traversalWords bits of readSpread set: some 20 different words read.
const traversalWords = 16

// spreadBit is the bit of readSpread for the word at addr.
func spreadBit(addr uintptr) uint64 { return 1 << ((addr >> 3) * 0x9e3779b97f4a7c15 >> 58) }

func (r *run) warn(s string) { r.warnings = append(r.warnings, s) }

// stoppable reports whether a request to stop exploring ends this
// execution: not a replay that describes a finding or follows a schedule,
// which are single executions.
func (r *run) stoppable() bool { return !r.traceOnly && r.strat != nil && r.guide == nil }

// stopped ends the execution because exploration was asked to stop (a
// -timeout in the middle of a long execution, an interrupt).
func (r *run) stopped(t *thread, s checkpoint.Stop) {
	r.bound = s
	r.end(EndBound)
	t.sleep()
}

// diverged reports that a replayed prefix did not reproduce: the program is
// not deterministic under the schedule (it depends on something xbtest does
// not control), so exploring it further would be unsound.
func (r *run) diverged(t *thread, why string) {
	r.internal = "replay diverged: the test behaves differently on the same schedule (" + why + "); it depends on something xbtest does not control"
	r.end(EndDiverged)
	t.sleep()
}

// internalPanic carries an error of xbtest itself out of user goroutines.
type internalPanic string

func (r *run) internalError(t *thread, msg string) {
	r.internal = "internal error: " + msg + "\n" + string(debug.Stack())
	r.end(EndInternal)
	t.sleep()
}

// fatal reports an unrecoverable runtime error (Go's "fatal error:", such
// as unlocking an unlocked mutex): the program would crash, so the
// execution ends.
func (r *run) fatal(t *thread, msg string) {
	r.addFinding(&result.Finding{Kind: result.Panic, Message: "fatal error: " + msg, Pos: srcpos.Caller(3),
		Goroutines: []result.Goroutine{{ID: t.id(), State: "running", Stack: string(debug.Stack())}}}, "fatal|"+msg+"|"+srcpos.Caller(3))
	r.end(EndFailure)
	t.sleep()
}

// isInternalFault reports whether a panic is a runtime error raised inside
// the scheduler itself (a bug of xbtest, not of the program under test).
// Panics the scheduler raises on purpose for the program (send on a closed
// channel, a negative WaitGroup counter) are not.
func isInternalFault(p any, stack []byte) bool {
	e, ok := p.(runtime.Error)
	if !ok {
		return false
	}
	if _, ok := p.(RuntimeError); ok {
		return false
	}
	switch e.Error() {
	case "send on closed channel", "close of closed channel", "close of nil channel":
		return false // a real channel operation a hook performed for the program
	}
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") && i+2 < len(lines) {
			// The frame after panic( may be runtime helpers (panicmem,
			// sigpanic); the first non-runtime frame raised it.
			for _, f := range lines[i+2:] {
				if strings.HasPrefix(f, "\t") || strings.HasPrefix(f, "runtime.") {
					continue
				}
				return srcpos.OwnFrame(f)
			}
		}
	}
	return false
}

// panicked records a panic that reached the top of a controlled goroutine.
func (r *run) panicked(t *thread, p any, stack []byte) {
	msg := fmt.Sprint(p)
	if e, ok := p.(error); ok {
		msg = e.Error()
	}
	pos := srcpos.Panic(stack)
	r.addFinding(&result.Finding{Kind: result.Panic, Message: "panic: " + msg, Pos: pos,
		Goroutines: []result.Goroutine{{ID: t.id(), State: "running", Pos: pos, Stack: string(stack)}}}, "panic|"+msg+"|"+pos)
}

func (r *run) objects(s Slot, mk func() ObjectTables) ObjectTables {
	if int(s) < len(r.objs) {
		if o := r.objs[s]; o != nil {
			return o
		}
	} else {
		r.objs = append(r.objs, make([]ObjectTables, int(s)+1-len(r.objs))...)
	}
	r.objs[s] = mk()
	return r.objs[s]
}

// addFinding records a finding of this execution, with the path that leads
// to it.
func (r *run) addFinding(rf *result.Finding, key string) {
	f := &Finding{Finding: *rf, Key: key}
	if r.t0 != nil {
		f.Log = append([]string(nil), r.t0.Log()...)
	}
	if r.exploring {
		f.Path = r.strat.PathPrefix()
		if g := r.guide; g != nil {
			if r.trace {
				r.notePositions(f)
			}
			g.Found()
		}
	} else {
		f.Path = append([]decision(nil), r.replay[:r.k]...)
		f.Path = append(f.Path, decision{Thread: r.cur.idx, End: r.events, Choices: append([]int32(nil), r.replay[r.k].Choices[:r.choiceN]...), Mid: true})
	}
	r.findings = append(r.findings, f)
}

// notePositions gives the goroutines of a finding of a guided execution
// their positions at the moment of the finding (trace mode).
func (r *run) notePositions(f *Finding) {
	pos := map[string]string{}
	for _, t := range r.threads {
		if file, line, _ := srcpos.UserFrame(t.pcs); file != "" {
			pos[t.id()] = srcpos.Short(file, line)
			srcpos.SourceLine(file, line)
		}
	}
	for i := range f.Goroutines {
		if g := &f.Goroutines[i]; g.Pos == "" {
			g.Pos = pos[g.ID]
		}
	}
	if f.Pos == "" && len(f.Goroutines) > 0 {
		f.Pos = f.Goroutines[0].Pos
	}
	f.Src = srcpos.SourceAt(f.Pos)
}

// watchdogTick is how often the driver looks at a running execution.
func watchdogTick(watchdog time.Duration) time.Duration { return min(watchdog/4, time.Second) }

// wait blocks the driver until the execution ends. It returns false if the
// running goroutine made no progress for the watchdog period.
//
// Only time the driver watched counts: when two looks are further apart
// than two ticks, the driver itself did not run meanwhile, and the
// goroutine it watches may not have had the chance either. That happens in
// a forked process: one that kept a branch point as a snapshot runs nothing
// but its loop over children, and a child of it starts with the snapshot's
// clock, whose last look may be long ago, and may run the driver before the
// goroutine that takes over the execution has said so.
func (r *run) wait(tick *time.Ticker) bool {
	if tick == nil {
		<-r.done
		return true
	}
	period := watchdogTick(r.cfg.Watchdog)
	last, gen, multi, since := r.beat.Load(), r.resumed.Load(), r.multiA.Load(), time.Now()
	prev := since
	childCPU := int64(-1)
	for {
		select {
		case <-r.done:
			return true
		case <-tick.C:
			select {
			case <-r.done:
				return true
			default:
			}
			// Now, not the tick's time: a tick due while nothing ran
			// the driver's timer carries the time it was due.
			now := time.Now()
			unwatched := now.Sub(prev) > 2*period
			prev = now
			m := r.multiA.Load()
			if b, g := r.beat.Load(), r.resumed.Load(); b != last || g != gen || m != multi || unwatched {
				// Progress; or this process is a fork checkpoint's child
				// that took over the execution; or the test goroutine,
				// which may have computed alone since the last look, just
				// started a second goroutine and is on its way to the
				// scheduling point that says so; or the driver was not
				// running.
				last, gen, multi, since = b, g, m, now
			} else if now.Sub(since) >= r.cfg.Watchdog {
				if !m && computingHook() {
					// One goroutine, running: a long sequential
					// computation, not a goroutine stuck elsewhere.
					since = now
					continue
				}
				if cpu, ok := descendantsCPU(); ok && cpu != childCPU {
					// A subprocess the test started works (go build):
					// the goroutine waits for it, it is not stuck.
					childCPU, since = cpu, now
					continue
				}
				if b, g := r.beat.Load(), r.resumed.Load(); b != last || g != gen {
					// It moved on while the stacks were read.
					last, gen, since = b, g, now
					continue
				}
				return false
			}
		}
	}
}

// teardown unwinds every goroutine of the execution that is still alive.
func (r *run) teardown() bool {
	r.dead.Store(true)
	for _, t := range r.threads {
		if !t.started || t.gone {
			continue
		}
		r.cur = t
		t.w.wake <- struct{}{}
		if !r.waitAck() {
			r.abandon(t, "did not finish unwinding")
			return false
		}
	}
	return true
}

func (r *run) waitAck() bool {
	if r.cfg.Watchdog <= 0 {
		<-r.ack
		return true
	}
	if ackTimer == nil {
		ackTimer = time.NewTimer(r.cfg.Watchdog)
	} else {
		ackTimer.Reset(r.cfg.Watchdog)
	}
	select {
	case <-r.ack:
		ackTimer.Stop()
		return true
	case <-ackTimer.C:
		return false
	}
}

// ackTimer bounds waitAck. One serves the process (one execution runs at a
// time): a timer per wait was an allocation per goroutine per execution.
var ackTimer *time.Timer

// abandon gives up on a goroutine that cannot be stopped and taints the
// process.
func (r *run) abandon(t *thread, why string) {
	msg := fmt.Sprintf("goroutine %s %s within %v: it is blocked or spinning in code xbtest does not control\n%s",
		t.id(), why, r.cfg.Watchdog, stuckStacks())
	if cause := tainted.Load(); cause != nil {
		// A goroutine xbtest does not control called instrumented code:
		// that is why the execution stopped.
		msg = *cause + "\n" + msg
	}
	r.internal = msg
	tainted.CompareAndSwap(nil, &msg)
}

// computingHook is computing; tests replace it.
var computingHook = computing

// computing reports whether the controlled goroutines that are not parked by
// the scheduler are running (computing), not blocked in the runtime.
func computing() bool {
	st := stuckStacks()
	if st == "" {
		return false
	}
	for _, g := range strings.Split(st, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if !runningState(header) {
			return false
		}
	}
	return true
}

// runningState reports whether a goroutine whose stack trace starts with
// header ("goroutine 7 [GC assist wait, locked to thread]:") is running or
// only held up by the runtime for a moment (preempted, helping or waiting
// for the collector, stopped with the world), not blocked on something
// that may never come (a channel, a lock, a sleep, a system call).
func runningState(header string) bool {
	_, state, ok := strings.Cut(header, " [")
	if !ok {
		return false
	}
	state, _, _ = strings.Cut(state, " labels:{") // GODEBUG=tracebacklabels=1
	state, _, _ = strings.Cut(state, "]")
	state, _, _ = strings.Cut(state, ",")        // ", 2 minutes", ", locked to thread"
	state = strings.TrimSuffix(state, " (scan)") // being scanned by the collector
	switch state {
	case "running", "runnable", "preempted",
		"GC assist marking", "GC assist wait", "GC sweep wait", "GC scavenge wait",
		"GC weak to strong wait", "wait for GC cycle", "garbage collection",
		"garbage collection scan", "GC mark termination", "stopping the world",
		"flushing proc caches":
		return true
	}
	return false
}

// stuckStacks returns the stacks of controlled goroutines that are not
// parked by the scheduler.
func stuckStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) { // else cut short: the one that matters may be missing
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "engine.(*worker).run") && !strings.Contains(g, "engine.(*thread).sleep") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
