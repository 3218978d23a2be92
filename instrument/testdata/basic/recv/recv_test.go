package recv

import (
	"sync"
	"testing"
)

// both runs f and g on two goroutines.
func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f() }()
	go func() { defer wg.Done(); g() }()
	wg.Wait()
}

func TestRecvLocked(t *testing.T) {
	s := new(Server)
	both(func() { s.Plain(); s.Coalesced(); s.Named(); s.Count() },
		func() { s.Plain(); s.Coalesced(); s.Named(); s.Count() })
	if s.count != 2 || s.coalescedMu.n != 2 || s.named.n != 2 || s.counter.n != 2 {
		t.Errorf("counts %d %d %d %d, want 2", s.count, s.coalescedMu.n, s.named.n, s.counter.n)
	}
}

// TestRecvValue races: Show reads s.v while Set writes it.
func TestRecvValue(t *testing.T) {
	s := new(Server)
	both(func() { s.Set(1) }, func() { _ = s.Show() })
}
