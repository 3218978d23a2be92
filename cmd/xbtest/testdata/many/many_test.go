// Package many is a 50-goroutine test for BenchmarkStrategies: the
// schedule tree is far too large to finish, and the bug needs one
// preemption early in the schedule.
package many

import (
	"sync"
	"testing"
)

// TestFiftyIncrements: 50 goroutines increment a counter under a mutex;
// the first one splits its increment over two critical sections, so a
// goroutine that runs between them loses an update. Depth-first order
// varies the last goroutines first and reaches the first one's split late.
func TestFiftyIncrements(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				mu.Lock()
				v := n
				mu.Unlock()
				mu.Lock()
				n = v + 1
				mu.Unlock()
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 50 {
		t.Errorf("n = %d, want 50", n)
	}
}
