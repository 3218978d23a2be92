package engine

import (
	"runtime"
	"sync"
)

// Go starts f on a new controlled goroutine; it replaces the go statement.
// The rewriter evaluates the arguments of `go f(a, b)` before calling Go, as
// Go does. Outside an execution Go is a plain go statement. It is not
// inlined: spawnSite counts frames from it.
//
//go:noinline
func Go(f func()) {
	r, t := enter()
	if r == nil {
		goOutside(f) // outside.go
		return
	}
	r.event(t)
	c := r.newThread(t, f)
	c.nSpawn = int8(spawnSite(c.spawnPCs[:]))
	r.race.Start(t.idx, c.idx)
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
	// A recorded spawn branch may stop the parent right here.
	r.transfer(t, r.point(t, ptSpawn))
}

// GoAndJoin runs f on a new controlled goroutine and waits for it to end,
// as T.Run runs a subtest. Starting the goroutine and starting to wait are
// one step: nothing the child could observe happens in between, so the
// wait adds no order to explore. f may call release to end the wait early,
// from its own goroutine: a subtest that calls T.Parallel lets Run return.
func GoAndJoin(f func(release func())) {
	r, t := enter()
	if r == nil {
		done := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(done) }) }
		go func() { defer release(); f(release) }()
		<-done
		return
	}
	r.event(t)
	var c *thread
	// release wakes the goroutine waiting for c before c ends. It is a
	// synchronization of c's (go test's subtest signals its parent on a
	// channel), and the parent may run before the rest of c's block.
	release := func() {
		r2, t := enter()
		if r2 != r || t != c || c.joiner == nil {
			return
		}
		t.OpPoint()
		r.event(t)
		j := c.joiner
		c.joiner = nil
		r.wakeUp(j, -1)
		t.WokeMidBlock()
	}
	c = r.newThread(t, func() { f(release) })
	c.subtest = true
	r.race.Start(t.idx, c.idx)
	c.joiner = t
	if r.exploring {
		// Enabled, not Spawned: a spawn is a point in the parent's block
		// that the child may run before the rest of it (a spawn branch,
		// and under the oracle and Algorithm Brute a branch at every
		// spawn, whose state has the parent still enabled). Here the
		// rest is the wait, so no such branch is an order of its own,
		// and one would leave the parent enabled while it waits: Run
		// would return before its subtest ended.
		r.strat.Woken(c.idx, -1)
	}
	r.parkHere(t, "subtest", -1)
}

// Goexit replaces runtime.Goexit.
func Goexit() {
	goexiting()
	runtime.Goexit()
}

// goexiting notes that the calling controlled goroutine is about to call
// runtime.Goexit: its worker's goroutine ends with it (deferred calls may
// still reach scheduling points, and a teardown may unwind them), so the
// worker must not go back to the pool.
func goexiting() {
	if r := active.Load(); r != nil && r.cur != nil && r.cur.g == getg() {
		r.cur.goexit = true
	}
}

// Step is a scheduling event without an operation: the rewriter puts it on
// loop back edges, so that a loop that touches no shared state still counts
// towards the step bound (the thesis's terminateAfter) instead of hanging.
//
// With one goroutine there is nothing to schedule or bound, so it costs a
// load and a test (the watchdog tells a long sequential loop from a blocked
// goroutine by its state, see run.wait).
func Step() {
	if hot.Load() {
		step()
	}
}

//go:noinline
func step() {
	if r, t := enter(); r != nil {
		if t.sb.Pending != 0 {
			t.unfenced = true // a loop's back edge is no fence
			r.event(t)
			t.unfenced = false
			return
		}
		r.event(t)
	}
}

// Gosched replaces runtime.Gosched: a block boundary at which the goroutine
// gives way to the others when it yields twice in a row (see the explorer's
// yielded), so that a loop polling with Gosched ends in every path.
func Gosched() {
	r, t := enter()
	if r == nil {
		runtime.Gosched()
		return
	}
	r.event(t)
	if r.multi {
		r.transfer(t, r.point(t, ptYield))
	}
}
