package scheduler_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// collectable is an object rewritten code allocates, with a lock and a
// channel in it, as a cache has (otter's TestCache_GC).
type collectable struct {
	mu   xb.Mutex
	n    int
	done chan struct{}
}

// An object the program dropped is collected during the execution, as in
// plain Go: a test that waits for that (a weak pointer, runtime.AddCleanup,
// runtime.GC in a loop) does not fail under xbtest, and sees the cleanup
// run after the first collection in every execution.
func TestDroppedObjectIsCollected(t *testing.T) {
	defer engine.SetCollectableForTest(true)() // what the rewriter says of a package that calls runtime.GC
	cfg := xb.DefaultConfig()
	res := xb.Explore("collect", func(t *xb.T) {
		var cleaned atomic.Bool
		w := func() weak.Pointer[collectable] {
			c := xb.New(&collectable{done: xb.MakeChan[struct{}](0)})
			buf := xb.Slice(make([]int, 8))
			buf = xb.Slice(append(buf, 1))
			c.n = len(buf)
			xb.Go(func() {
				c.mu.Lock()
				c.n++
				c.mu.Unlock()
				xb.Close(c.done)
			})
			c.mu.Lock()
			c.n++
			c.mu.Unlock()
			xb.Recv(c.done) // the goroutine, which holds c, ended
			runtime.AddCleanup(c, func(b *atomic.Bool) { b.Store(true) }, &cleaned)
			return weak.Make(c)
		}()
		for i := 0; w.Value() != nil || !cleaned.Load(); i++ {
			if i == 1 {
				t.Fatal("the dropped object was not collected")
			}
			xb.GC() // runtime.GC, rewritten
			xb.TimeSleep(time.Millisecond)
		}
	}, cfg)
	if res.Internal != "" || len(res.Findings) != 0 {
		t.Fatalf("%+v", res)
	}
}

// Two objects that occupy one address in turn (the collector freed the
// first) are not a race, though no synchronization orders their accesses;
// two accesses of one object are.
func TestObjectsAtOneAddressDoNotRace(t *testing.T) {
	defer engine.SetCollectableForTest(true)()
	defer engine.SetGCCyclesForTest(func() uint64 { return 0 })() // no collection: the detection alone decides
	for _, reused := range []bool{true, false} {
		res := xb.Explore("reuse", func(t *xb.T) {
			p := xb.New(new(int))
			var wrote atomic.Bool // not a synchronization xbtest knows of
			xb.Go(func() {
				xb.Write(unsafe.Pointer(p), 8, 0)
				wrote.Store(true)
			})
			xb.Go(func() {
				for !wrote.Load() {
					xb.Gosched()
				}
				if reused {
					// The first object is dead and a new one has its address.
					xb.New(p)
				}
				xb.Write(unsafe.Pointer(p), 8, 0)
			})
		}, xb.DefaultConfig())
		if res.Internal != "" || !res.Complete {
			t.Fatalf("reused=%v: %+v", reused, res)
		}
		races := res.Count(result.Race)
		if want := map[bool]int{true: 0, false: 1}[reused]; races != want {
			t.Errorf("reused=%v: %d race findings, want %d", reused, races, want)
		}
	}
}
