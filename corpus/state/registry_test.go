package state

import (
	"os"
	"sync"
	"testing"
)

// register has two goroutines register a name each and checks the ids.
// Each test registers names of its own: the package-level registry outlives
// a test, under go test as under xbtest.
func register(t *testing.T, reg func(string) int, names ...string) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/state)")
	}
	var wg sync.WaitGroup
	ids := make([]int, 2)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = reg(name)
		}()
	}
	wg.Wait()
	if ids[0] == ids[1] {
		t.Errorf("%s and %s got the same id %d", names[0], names[1], ids[0])
	}
}

func TestGlobalRegistry(t *testing.T)      { register(t, Register, "alpha", "beta") }
func TestGlobalRegistryFixed(t *testing.T) { register(t, RegisterFixed, "gamma", "delta") }
func TestLocalRegistry(t *testing.T)       { register(t, NewRegistry().Register, "alpha", "beta") }
func TestLocalRegistryFixed(t *testing.T)  { register(t, NewRegistry().RegisterFixed, "gamma", "delta") }
