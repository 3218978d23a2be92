package engine

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// Go starts f on a new controlled goroutine; it replaces the go statement.
// The rewriter evaluates the arguments of `go f(a, b)` before calling Go, as
// Go does. Outside an execution Go is a plain go statement.
func Go(f func()) {
	r, t := enter()
	if r == nil {
		goOutside(f) // outside.go
		return
	}
	r.event(t)
	c := r.newThread(t, f)
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
	c = r.newThread(t, func() { f(func() { c.releaseJoiner() }) })
	r.race.Start(t.idx, c.idx)
	c.joiner = t
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
	r.parkHere(t, "subtest", -1)
}

// releaseJoiner wakes the goroutine waiting in GoAndJoin for c before c
// ends. It is a synchronization of c's (go test's subtest signals its
// parent on a channel), and the parent may run before the rest of c's
// block.
func (c *thread) releaseJoiner() {
	r := c.r
	r2, t := enter()
	if r2 != r || t != c || c.joiner == nil {
		return
	}
	t.opPoint()
	r.event(t)
	j := c.joiner
	c.joiner = nil
	r.wakeUp(j, -1)
	t.wokeMidBlock()
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

// startChild starts fn on a new goroutine, a child of parent: an
// AfterFunc's function. byClock: started by a tick (no block is under way,
// the child is simply enabled); otherwise by t's block, like a go
// statement. A non-nil key carries the happens-before edge from the
// AfterFunc call.
func (parent *thread) startChild(t *thread, fn func(), byClock bool, key unsafe.Pointer) *thread {
	r := parent.r
	c := r.newThread(parent, fn)
	if byClock {
		r.clock.SpawnedByClock()
		r.race.Start(-1, c.idx)
		if key != nil {
			r.race.Observe(c.idx, key, races.RoleSend)
		}
		if r.exploring {
			r.strat.Woken(c.idx, -1) // enabled, as a goroutine a timer wakes
		}
		return c
	}
	r.race.Start(t.idx, c.idx)
	if r.exploring {
		r.strat.Spawned(c.idx)
	}
	return c
}

// wokeMidBlock: the signaller woke a waiter whose lock nobody holds (it
// signalled without holding c.L, which Go allows and Java's notify does
// not), so the waiter may run before the rest of the signaller's block; the
// explorer branches there as after a go statement (internal/exitblock, "Spawn branches").
func (t *thread) wokeMidBlock() {
	r := t.r
	if r.exploring {
		r.strat.EnabledMidBlock()
	}
	r.transfer(t, r.point(t, ptWake))
}
