package scheduler_test

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// next returns "scheduler/<file>:<line>" of the line after its caller, to
// compare with the positions of findings.
func next() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("scheduler/%s:%d", file[strings.LastIndexByte(file, '/')+1:], line+1)
}

// one explores body with the default configuration and expects exactly one
// finding, of kind k, whose message contains msg.
func one(t *testing.T, body func(*xb.T), k result.Kind, msg string) *result.Finding {
	t.Helper()
	res := explore(t, t.Name(), body, xb.DefaultConfig())
	if len(res.Findings) != 1 || res.Findings[0].Kind != k || !strings.Contains(res.Findings[0].Message, msg) {
		t.Fatalf("want one %s finding with %q, got %v", k, msg, res.Findings)
	}
	return res.Findings[0]
}

func none(t *testing.T, body func(*xb.T)) *result.Result {
	t.Helper()
	res := explore(t, t.Name(), body, xb.DefaultConfig())
	if len(res.Findings) != 0 {
		t.Fatalf("want no findings, got %v", res.Findings)
	}
	return res
}

// reach explores body and returns the set of outcomes it recorded.
func reach(t *testing.T, body func(out func(string)) func(*xb.T)) []string {
	t.Helper()
	seen := map[string]bool{}
	res := explore(t, t.Name(), body(func(s string) { seen[s] = true }), xb.DefaultConfig())
	if len(res.Findings) != 0 {
		t.Fatalf("unexpected findings %v", res.Findings)
	}
	return slices.Sorted(maps.Keys(seen))
}

func TestMutexUnlockOfUnlockedIsFatal(t *testing.T) {
	var pos string
	f := one(t, func(t *xb.T) {
		var mu xb.Mutex
		pos = next()
		mu.Unlock()
	}, result.Panic, "fatal error: sync: unlock of unlocked mutex")
	if f.Pos != pos {
		t.Errorf("at %s, want %s", f.Pos, pos)
	}
}

func TestMutexLockedTwiceDeadlocks(t *testing.T) {
	one(t, func(t *xb.T) {
		var mu xb.Mutex
		mu.Lock()
		mu.Lock()
	}, result.LockCycle, "which it already holds")
}

func TestMutexUnlockedByAnotherGoroutine(t *testing.T) {
	none(t, func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		done := xb.MakeChan[bool](0)
		mu.Lock()
		xb.Go(func() {
			mu.Unlock() // allowed in Go
			xb.Send(done, true)
		})
		xb.Recv(done)
		mu.Lock()
		mu.Unlock()
	})
}

// A goroutine that locks a Mutex, hands it to another goroutine to unlock,
// and then locks it again (otter's scheduleDrainBuffers: TryLock, the
// maintenance goroutine takes the lock over and unlocks it; then the
// writer's GetMaximum locks it): it waits for the other goroutine's
// Unlock, as in Go ("A locked Mutex is not associated with a particular
// goroutine"), whichever runs first. No self-deadlock; the same for an
// RWMutex held for writing, also when it read-locks it again.
func TestMutexLockedAgainAfterHandOver(t *testing.T) {
	none(t, func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		mu.Lock()
		xb.Go(func() { mu.Unlock() })
		mu.Lock()
		mu.Unlock()
	})
	for _, mode := range []string{"Lock", "RLock"} {
		none(t, func(t *xb.T) {
			rw := xb.New(new(xb.RWMutex))
			rw.Lock()
			xb.Go(func() { rw.Unlock() })
			if mode == "Lock" {
				rw.Lock()
				rw.Unlock()
			} else {
				rw.RLock()
				rw.RUnlock()
			}
		})
	}
}

// Locking a Mutex twice with no other goroutine that could unlock it is
// reported when the path ends: every goroutine is asleep, one waiting for
// the lock it holds itself.
func TestMutexLockedTwiceWhileOthersWaitDeadlocks(t *testing.T) {
	one(t, func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Send(done, true) })
		mu.Lock()
		mu.Lock()
		xb.Recv(done)
	}, result.Deadlock, "all goroutines are asleep")
}

func TestTryLock(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			mu := xb.New(new(xb.Mutex))
			res := xb.MakeChan[bool](1)
			xb.Go(func() {
				mu.Lock()
				mu.Unlock()
			})
			ok := mu.TryLock()
			if ok {
				if mu.TryLock() {
					t.Error("TryLock succeeded on a held mutex")
				}
				mu.Unlock()
			}
			xb.Send(res, ok)
			out(fmt.Sprint(xb.Recv(res)))
		}
	})
	if !slices.Equal(got, []string{"false", "true"}) {
		t.Errorf("TryLock outcomes %v, want [false true]", got)
	}
}

func TestRWMutexReadersShareWritersExclude(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			rw := xb.New(new(xb.RWMutex))
			inside := xb.New(new(xb.Int32))
			maxInside := xb.New(new(xb.Int32))
			sp := xb.New(new(spawner))
			for range 2 {
				sp.goWait(func() {
					rw.RLock()
					if n := inside.Add(1); n > maxInside.Load() {
						maxInside.Store(n)
					}
					inside.Add(-1)
					rw.RUnlock()
				})
			}
			sp.goWait(func() {
				rw.Lock()
				if inside.Load() != 0 {
					t.Error("a writer is inside with readers")
				}
				rw.Unlock()
			})
			sp.wg.Wait()
			out(fmt.Sprint(maxInside.Load()))
		}
	})
	if !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("readers inside at once: %v, want [1 2] (two readers can share)", got)
	}
}

// A writer blocked in Lock makes later RLock calls wait, as sync.RWMutex
// does: a goroutine that read-locks recursively deadlocks if a writer
// queues between its two RLocks.
func TestRWMutexWriterPreferenceDeadlock(t *testing.T) {
	f := one(t, func(t *xb.T) {
		rw, other := xb.New(new(xb.RWMutex)), xb.New(new(xb.Mutex))
		sp := xb.New(new(spawner))
		defer sp.wg.Wait()
		sp.goWait(func() {
			rw.RLock()
			other.Lock() // a block boundary between the two RLocks
			other.Unlock()
			rw.RLock()
			rw.RUnlock()
			rw.RUnlock()
		})
		sp.goWait(func() {
			rw.Lock()
			rw.Unlock()
		})
	}, result.LockCycle, "")
	var on []string
	for _, g := range f.Goroutines {
		on = append(on, g.ID+":"+g.On)
	}
	slices.Sort(on)
	want := []string{"T0.1:rwmutex", "T0.2:rwmutex (writer waiting for readers)"}
	if !slices.Equal(on, want) {
		t.Errorf("goroutines %v, want %v", on, want)
	}
}

func TestRWMutexRUnlockOfUnlockedIsFatal(t *testing.T) {
	one(t, func(t *xb.T) {
		var rw xb.RWMutex
		rw.RUnlock()
	}, result.Panic, "fatal error: sync: RUnlock of unlocked RWMutex")
}

func TestRWMutexLockWhileReadingDeadlocks(t *testing.T) {
	one(t, func(t *xb.T) {
		var rw xb.RWMutex
		rw.RLock()
		rw.Lock()
	}, result.LockCycle, "which it already holds")
}

func TestCondBroadcastWakesAll(t *testing.T) {
	none(t, func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		c := xb.NewCond(mu)
		ready := xb.New(new(int))
		go2 := xb.New(new(bool))
		sp := xb.New(new(spawner))
		for range 3 {
			sp.goWait(func() {
				mu.Lock()
				wr(ready, rd(ready)+1)
				for !*go2 {
					c.Wait()
				}
				mu.Unlock()
			})
		}
		mu.Lock()
		*go2 = true
		c.Broadcast()
		mu.Unlock()
		sp.wg.Wait()
	})
}

func TestCondWaitWithoutLockIsFatal(t *testing.T) {
	one(t, func(t *xb.T) {
		var mu xb.Mutex
		xb.NewCond(&mu).Wait()
	}, result.Panic, "unlock of unlocked mutex")
}

func TestWaitGroupNegativeCounterPanics(t *testing.T) {
	var pos string
	f := one(t, func(t *xb.T) {
		var wg xb.WaitGroup
		pos = next()
		wg.Done()
	}, result.Panic, "panic: sync: negative WaitGroup counter")
	if f.Pos != pos {
		t.Errorf("at %s, want %s", f.Pos, pos)
	}
	// Like Go's, the panic can be recovered.
	none(t, func(t *xb.T) {
		var wg xb.WaitGroup
		defer func() {
			if r := recover(); r != "sync: negative WaitGroup counter" {
				t.Errorf("recovered %v", r)
			}
		}()
		wg.Add(-1)
	})
}

func TestOnceRunsOnce(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			once := xb.New(new(xb.Once))
			calls := xb.New(new(int))
			sp := xb.New(new(spawner))
			for range 3 {
				sp.goWait(func() { once.Do(func() { wr(calls, rd(calls)+1) }) })
			}
			sp.wg.Wait()
			out(fmt.Sprint(rd(calls)))
		}
	})
	if !slices.Equal(got, []string{"1"}) {
		t.Errorf("Once ran f %v times", got)
	}
}

func TestChannelPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		body func()
		msg  string
	}{
		{"send on closed", func() { ch := xb.MakeChan[int](1); xb.Close(ch); xb.Send(ch, 1) }, "panic: send on closed channel"},
		{"close of closed", func() { ch := xb.MakeChan[int](0); xb.Close(ch); xb.Close(ch) }, "panic: close of closed channel"},
		{"close of nil", func() { var ch chan int; xb.Close(ch) }, "panic: close of nil channel"},
		{"send on closed while blocked", func() {
			ch := xb.MakeChan[int](0)
			xb.Go(func() { xb.Close(ch) })
			xb.Send(ch, 1)
		}, "panic: send on closed channel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			one(t, func(*xb.T) { c.body() }, result.Panic, c.msg)
			// The panic value is a runtime.Error, as Go's is.
			none(t, func(t *xb.T) {
				defer func() {
					var re runtime.Error
					if err, ok := recover().(error); !ok || !errors.As(err, &re) {
						t.Errorf("recovered %v, want a runtime.Error", err)
					}
				}()
				c.body()
			})
		})
	}
}

func TestNilChannelBlocksForever(t *testing.T) {
	f := one(t, func(t *xb.T) {
		var ch chan int
		xb.Recv(ch)
	}, result.Deadlock, "")
	if len(f.Goroutines) != 1 || f.Goroutines[0].On != "nil channel (receive)" {
		t.Errorf("goroutines %+v", f.Goroutines)
	}
}

func TestEmptySelectBlocksForever(t *testing.T) {
	one(t, func(t *xb.T) { xb.Select(false) }, result.Deadlock, "")
}

func TestClosedChannelReceivesAndRange(t *testing.T) {
	none(t, func(t *xb.T) {
		ch := xb.MakeChan[int](3)
		xb.Go(func() {
			for i := range 3 {
				xb.Send(ch, i+1)
			}
			xb.Close(ch)
		})
		sum := 0
		for v, ok := xb.Recv2(ch); ok; v, ok = xb.Recv2(ch) {
			sum += v
		}
		if sum != 6 {
			t.Errorf("received sum %d", sum)
		}
		if v, ok := xb.Recv2(ch); v != 0 || ok {
			t.Errorf("receive from closed channel: %d %v", v, ok)
		}
		if xb.Len(ch) != 0 || cap(ch) != 3 {
			t.Errorf("len %d cap %d", xb.Len(ch), cap(ch))
		}
	})
}

func TestBufferedChannelLenAndCapacity(t *testing.T) {
	none(t, func(t *xb.T) {
		ch := xb.MakeChan[string](2)
		xb.Send(ch, "a")
		xb.Send(ch, "b")
		if xb.Len(ch) != 2 {
			t.Errorf("len %d", xb.Len(ch))
		}
		var s string
		if i, _ := xb.Select(true, xb.SendCase(ch, "c")); i != -1 {
			t.Error("send to a full channel proceeded")
		}
		if i, ok := xb.Select(true, xb.RecvCase(ch, &s)); i != 0 || !ok || s != "a" {
			t.Errorf("select received %d %v %q", i, ok, s)
		}
	})
}

// An unbuffered send completes only with a receiver: the receiver's prints
// always come after the sender blocked, whatever the schedule.
func TestUnbufferedRendezvous(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			ch := xb.MakeChan[int](0)
			log := xb.New(new(xb.Int32))
			xb.Go(func() {
				log.Store(1)
				xb.Send(ch, 7)
				log.Store(2)
			})
			xb.Recv(ch)
			out(fmt.Sprint(log.Load()))
		}
	})
	if !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("outcomes %v", got)
	}
}

func TestSelectDefaultWhenNothingReady(t *testing.T) {
	none(t, func(t *xb.T) {
		ch := xb.MakeChan[int](0)
		if i, _ := xb.Select(true, xb.RecvCase(ch, nil), xb.SendCase(ch, 1)); i != -1 {
			t.Errorf("select chose %d", i)
		}
	})
}

func TestAtomicLostUpdateFound(t *testing.T) {
	var pos string
	f := one(t, func(t *xb.T) {
		var n int64
		sp := xb.New(new(spawner))
		xb.Alloc(unsafePointer(&n), 8)
		for range 2 {
			sp.goWait(func() {
				v := xb.LoadInt64(&n)
				xb.StoreInt64(&n, v+1)
			})
		}
		sp.wg.Wait()
		if n != 2 {
			pos = next()
			t.Errorf("lost update: %d", n)
		}
	}, result.Assertion, "lost update: 1")
	if f.Pos != pos {
		t.Errorf("at %s, want %s", f.Pos, pos)
	}
	none(t, func(t *xb.T) {
		var n xb.Int64
		sp := xb.New(new(spawner))
		for range 2 {
			sp.goWait(func() {
				for {
					old := n.Load()
					if n.CompareAndSwap(old, old+1) {
						return
					}
				}
			})
		}
		sp.wg.Wait()
		if n.Load() != 2 {
			t.Errorf("CAS counter: %d", n.Load())
		}
	})
}

func TestSyncMapRangesInInsertionOrder(t *testing.T) {
	none(t, func(t *xb.T) {
		var m xb.Map
		for _, k := range []string{"z", "a", "m"} {
			m.Store(k, len(k))
		}
		if v, loaded := m.LoadOrStore("a", 9); !loaded || v != 1 {
			t.Errorf("LoadOrStore: %v %v", v, loaded)
		}
		m.Delete("a")
		var keys []string
		m.Range(func(k, v any) bool { keys = append(keys, k.(string)); return true })
		if !slices.Equal(keys, []string{"z", "m"}) {
			t.Errorf("Range order %v", keys)
		}
	})
}

func TestPanicInGoroutineIsReportedWithItsPosition(t *testing.T) {
	var pos string
	f := one(t, func(t *xb.T) {
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			m := nilMap()
			pos = next()
			m["x"] = 1
		})
		sp.wg.Wait()
	}, result.Panic, "assignment to entry in nil map")
	if f.Pos != pos || f.Goroutines[0].ID != "T0.1" || !strings.Contains(f.Goroutines[0].Stack, "goroutine") {
		t.Errorf("at %s by %s, want %s by T0.1", f.Pos, f.Goroutines[0].ID, pos)
	}
}

func TestFatalStopsTheTestErrorDoesNot(t *testing.T) {
	after := false
	res := explore(t, "fatal", func(t *xb.T) {
		t.Error("first")
		t.Fatal("second")
		after = true
	}, xb.DefaultConfig())
	if after || len(res.Findings) != 2 || res.Findings[0].Message != "first" || res.Findings[1].Message != "second" {
		t.Errorf("after=%v findings %v", after, res.Findings)
	}
}

func TestSkip(t *testing.T) {
	res := explore(t, "skip", func(t *xb.T) { t.Skip("not today") }, xb.DefaultConfig())
	if !res.Skipped || len(res.Findings) != 0 {
		t.Errorf("skipped=%v findings %v", res.Skipped, res.Findings)
	}
}

func TestHelperPositions(t *testing.T) {
	var pos string
	check := func(t *xb.T, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("check failed")
		}
	}
	f := one(t, func(t *xb.T) {
		pos = next()
		check(t, false)
	}, result.Assertion, "check failed")
	if f.Pos != pos {
		t.Errorf("at %s, want the helper's caller %s", f.Pos, pos)
	}
}

func TestSubtests(t *testing.T) {
	f := one(t, func(t *xb.T) {
		ok := t.Run("inner", func(t *xb.T) { t.Errorf("inner failed") })
		if ok {
			t.Errorf("Run reported success")
		}
		t.Cleanup(func() {})
	}, result.Assertion, "inner failed")
	if f.Goroutines[0].ID != "T0.1" {
		t.Errorf("subtest ran on %s", f.Goroutines[0].ID)
	}
}

func TestLeak(t *testing.T) {
	f := one(t, func(t *xb.T) {
		ch := xb.MakeChan[int](0)
		xb.Go(func() { xb.Send(ch, 1) }) // nobody receives
	}, result.Leak, "blocked forever")
	if len(f.Goroutines) != 1 || f.Goroutines[0].ID != "T0.1" || f.Goroutines[0].On != "chan send" {
		t.Errorf("goroutines %+v", f.Goroutines)
	}
}

func unsafePointer(p *int64) unsafe.Pointer { return unsafe.Pointer(p) }

// math/rand as the rewriter redirects it gives every execution the same
// numbers, so that replaying a prefix reproduces it.
func TestRandIsFixedPerExecution(t *testing.T) {
	var seqs []string
	none(t, func(t *xb.T) {
		mu := xb.New(new(xb.Mutex))
		for range 2 {
			xb.Go(func() { mu.Lock(); mu.Unlock() })
		}
		seqs = append(seqs, fmt.Sprint(xb.Rand().Intn(1000), xb.RandV2().IntN(1000)))
	})
	if len(seqs) < 2 || len(slices.Compact(slices.Clone(seqs))) != 1 {
		t.Errorf("executions drew %v", seqs)
	}
}

func TestFindingsCarryTheLog(t *testing.T) {
	f := one(t, func(t *xb.T) {
		t.Logf("starting with %d", 3)
		t.Errorf("bad")
	}, result.Assertion, "bad")
	if len(f.Log) != 2 || !strings.HasSuffix(f.Log[0], ": starting with 3") || !strings.HasSuffix(f.Log[1], ": bad") {
		t.Errorf("log %q", f.Log)
	}
}

// Sequential subtests add no orders to explore: t.Run starts the subtest's
// goroutine and waits for it in one step.
func TestSubtestsDoNotMultiplySchedules(t *testing.T) {
	res := none(t, func(t *xb.T) {
		for i := range 10 {
			t.Run(fmt.Sprint(i), func(t *xb.T) {
				mu := xb.New(new(xb.Mutex))
				mu.Lock()
				mu.Unlock()
			})
		}
	})
	if res.Schedules != 1 {
		t.Errorf("10 sequential subtests: %d schedules, want 1", res.Schedules)
	}
}

// nilMap returns a nil map: writing to it is the panic a test needs.
func nilMap() map[string]int { return nil }
