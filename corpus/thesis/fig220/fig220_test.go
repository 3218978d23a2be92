package fig220

import (
	"os"
	"sync"
	"testing"
)

func TestFig220(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	m := NewMonitor()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		m.Thread1()
	}()
	go func() {
		defer wg.Done()
		m.Thread2()
	}()
	wg.Wait()
}
