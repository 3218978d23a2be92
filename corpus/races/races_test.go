package races

import (
	"os"
	"sync"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/races)")
	}
}

func TestMapReadWithoutLock(t *testing.T) {
	skipUnlessXBTest(t)
	c := NewCache()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Set("a", 1) }()
	go func() { defer wg.Done(); _ = c.Peek("a") }()
	wg.Wait()
}

func TestMapLocked(t *testing.T) {
	skipUnlessXBTest(t)
	c := NewCache()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Set("a", 1) }()
	go func() { defer wg.Done(); _ = c.Get("a") }()
	wg.Wait()
	if c.Get("a") != 1 {
		t.Error("lost the write")
	}
}

func TestDoubleCheckedInit(t *testing.T) {
	skipUnlessXBTest(t)
	var l Lazy
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l.Get().Workers != 4 {
				t.Error("bad config")
			}
		}()
	}
	wg.Wait()
}

func TestOnceInit(t *testing.T) {
	skipUnlessXBTest(t)
	var l OnceLazy
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l.Get().Workers != 4 {
				t.Error("bad config")
			}
		}()
	}
	wg.Wait()
}

func TestChannelHandOver(t *testing.T) {
	skipUnlessXBTest(t)
	if got := Pipeline(2); got != 109 {
		t.Errorf("Pipeline(2) = %d, want 109", got)
	}
}

// TestWaitGroupJoin writes results in goroutines and reads them after Wait:
// ordered by the WaitGroup, no race.
func TestWaitGroupJoin(t *testing.T) {
	skipUnlessXBTest(t)
	results := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i + 1
		}()
	}
	wg.Wait()
	if results[0]+results[1] != 3 {
		t.Errorf("results %v", results)
	}
}

func TestRWMutexReadLockWrite(t *testing.T) {
	skipUnlessXBTest(t)
	var s Stats
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); s.Hit() }()
	}
	wg.Wait()
}

func TestRWMutexWriteLock(t *testing.T) {
	skipUnlessXBTest(t)
	var s Stats
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); s.HitLocked(); _ = s.Hits() }()
	}
	wg.Wait()
	if s.Hits() != 2 {
		t.Errorf("hits = %d, want 2", s.Hits())
	}
}

func TestAtomicMixedWithPlain(t *testing.T) {
	skipUnlessXBTest(t)
	var c Counter
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Inc() }()
	go func() { defer wg.Done(); c.Reset() }()
	wg.Wait()
}

func TestAtomicOnly(t *testing.T) {
	skipUnlessXBTest(t)
	var c Counter
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Inc() }()
	go func() { defer wg.Done(); c.ResetAtomic() }()
	wg.Wait()
	if n := c.Load(); n != 0 && n != 1 {
		t.Errorf("n = %d", n)
	}
}
