package splitsync

import (
	"os"
	"sync"
	"testing"
)

// run starts the two threads of Figure 4.2, each calling incr once, and waits
// for both.
func run(t *testing.T, r *Resource, incr func(*Resource) bool) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !incr(r) {
				t.Errorf("SplitSync.run: shared var was modified")
			}
		}()
	}
	wg.Wait()
}

func TestSplitSync(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	var r Resource
	run(t, &r, (*Resource).SplitIncrement)
}

func TestSplitSyncFixed(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	var r Resource
	run(t, &r, (*Resource).Increment)
	if got := r.Value(); got != 2 {
		t.Errorf("after two increments x = %d, want 2", got)
	}
}
