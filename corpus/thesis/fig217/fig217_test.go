package fig217

import (
	"os"
	"sync"
	"testing"
)

func TestFig217(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	var l Locks
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.Thread1()
	}()
	go func() {
		defer wg.Done()
		l.Thread2()
	}()
	wg.Wait()
}
