package fig221

import (
	"os"
	"sync"
	"testing"
)

func TestFig221(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	m := NewMonitor()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // Thread 1
		defer wg.Done()
		m.Thread()
	}()
	go func() { // Thread 2
		defer wg.Done()
		m.Thread()
	}()
	wg.Wait()
}
