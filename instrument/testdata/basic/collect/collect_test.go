// Package collect waits for objects to be collected, as caches' tests do
// (otter's TestCache_GC): executions must not keep the objects they see
// alive (scheduler.ObservesCollection).
package collect

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"
)

type cache struct {
	mu    sync.Mutex
	wg    sync.WaitGroup
	items []int
	done  chan struct{}
}

func newCache() *cache {
	c := &cache{done: make(chan struct{})}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.mu.Lock()
		c.items = append(c.items, 1)
		c.mu.Unlock()
	}()
	return c
}

func TestCollected(t *testing.T) {
	var cleaned atomic.Bool
	w := func() weak.Pointer[cache] {
		c := newCache()
		c.mu.Lock()
		c.items = append(c.items, 2)
		c.mu.Unlock()
		c.wg.Wait()
		runtime.AddCleanup(c, func(b *atomic.Bool) { b.Store(true) }, &cleaned)
		return weak.Make(c)
	}()
	for i := 0; w.Value() != nil || !cleaned.Load(); i++ {
		if i == 10 {
			t.Fatal("the cache was not collected")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
