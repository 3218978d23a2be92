package deadlock

import (
	"os"
	"sync"
	"testing"
)

// run starts one goroutine per element of orders ("First", "Second", ...),
// each calling l.Run with that element, and waits for all of them.
func run(orders ...bool) {
	var l Locks
	var wg sync.WaitGroup
	for _, ab := range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run(ab)
		}()
	}
	wg.Wait()
}

func TestDeadlock(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(true, false) // First: a, b; Second: b, a
}

func TestDeadlockFixed(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(true, true) // both: a, b
}
