package deadlock3

import (
	"os"
	"sync"
	"testing"
)

func TestDeadlock3(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	var l Locks
	var wg sync.WaitGroup
	for order := range 3 { // "First", "Second", "Third"
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run(order)
		}()
	}
	wg.Wait()
}
