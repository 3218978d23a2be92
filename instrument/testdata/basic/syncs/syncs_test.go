package syncs

import (
	"sync"
	"testing"
)

func TestSyncOnce(t *testing.T) {
	var c Config
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Get() != "loaded" {
				t.Error("not loaded")
			}
		}()
	}
	wg.Wait()
	if n := c.loads.Load(); n != 1 {
		t.Errorf("loaded %d times", n)
	}
}

func TestSyncCondQueue(t *testing.T) {
	q := NewQueue()
	var wg sync.WaitGroup
	wg.Go(func() { q.Put(1) })
	wg.Go(func() { q.Put(2) })
	sum := q.Get() + q.Get()
	wg.Wait()
	if sum != 3 {
		t.Errorf("sum %d", sum)
	}
}

func TestSyncRWMutex(t *testing.T) {
	var r Registry
	done := make(chan struct{})
	go func() {
		r.Set("a", 1)
		close(done)
	}()
	<-done
	if v, ok := r.Lookup("a"); !ok || v != 1 {
		t.Errorf("Lookup = %d, %v", v, ok)
	}
}

func TestSyncAtomics(t *testing.T) {
	var s Stats
	var wg sync.WaitGroup
	for _, v := range []int64{3, 5} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Observe(v, "x")
		}()
	}
	wg.Wait()
	if s.Max() != 5 || s.Hits() != 2 || !s.ok.Load() || *s.last.Load() != "x" || s.value.Load() != "x" {
		t.Errorf("Stats: max %d hits %d", s.Max(), s.Hits())
	}
}

func TestSyncMapPool(t *testing.T) {
	var wg sync.WaitGroup
	var c Counts
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Count("k")
			_ = Buffer()
		}()
	}
	wg.Wait()
	if n := c.CountOf("k"); n != 2 {
		t.Errorf("count %d", n)
	}
	if Answer() != 42 {
		t.Error("Answer")
	}
	if n := Quit(); n != 1 {
		t.Errorf("Quit() = %d", n)
	}
}
