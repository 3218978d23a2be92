package lockorder

import (
	"sync"
	"testing"
)

func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f() }()
	go func() { defer wg.Done(); g() }()
	wg.Wait()
}

func TestLockOrder(t *testing.T) {
	var p Pair
	both(p.AB, p.BA)
}

func TestLockOrderFixed(t *testing.T) {
	var p Pair
	both(p.AB, p.AB)
}
