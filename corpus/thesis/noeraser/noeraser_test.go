package noeraser

import (
	"os"
	"sync"
	"testing"
)

func TestNoEraser(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	var r Resource
	var wg sync.WaitGroup
	for _, name := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Run(name)
		}()
	}
	wg.Wait()
}
