package helpers

import (
	"sync"
	"testing"
)

type check struct {
	name string
	run  func(t *testing.T, n int)
}

func expect(tb testing.TB, got, want int) {
	tb.Helper()
	if got != want {
		tb.Fatalf("got %d, want %d", got, want)
	}
}

var checks = []check{
	{"even", func(t *testing.T, n int) { expect(t, n%2, 0) }},
	{"small", func(t *testing.T, n int) { expect(t, n/10, 0) }},
}

// TestHelpersSubtests runs table-driven subtests with helpers taking
// testing.TB; the "small" check always fails (n is 10), which must be an
// assertion finding.
func TestHelpersSubtests(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for _, d := range []int{4, 6} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n += d
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Cleanup(func() {})
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, n) })
	}
}
