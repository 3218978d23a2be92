package deadlockwait

import (
	"os"
	"sync"
	"testing"
)

func TestDeadlockWait(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	l := NewLocks()
	var wg sync.WaitGroup
	for _, ab := range []bool{true, false} { // "First", "Second"
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run(ab)
		}()
	}
	wg.Wait()
}
