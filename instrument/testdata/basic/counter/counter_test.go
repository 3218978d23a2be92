package counter

import (
	"sync"
	"testing"
)

func run(n int, f func()) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

func TestLockedCounter(t *testing.T) {
	var c Locked
	run(2, c.Inc)
	if got := c.Value(); got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
}

func TestLostUpdate(t *testing.T) {
	var c Racy
	run(2, c.Inc)
	if got := c.Value(); got != 2 {
		t.Errorf("lost update: got %d, want 2", got)
	}
}

func TestGlobalTotal(t *testing.T) {
	total = 0
	run(2, func() { Add(1) })
	if Total() != 2 {
		t.Error("bad total")
	}
}
