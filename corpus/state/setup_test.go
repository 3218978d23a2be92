package state

import (
	"sync"
	"testing"
)

var (
	setupOnce sync.Once
	cacheA    *Group
	cacheB    *Group
)

// testSetup registers the suite's groups, once per process.
func testSetup() {
	cacheA = NewGroup("a")
	cacheB = NewGroup("b")
}

func TestSetupOnceA(t *testing.T) {
	setupOnce.Do(testSetup)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); cacheA.Hit() }()
	}
	wg.Wait()
}

func TestSetupOnceB(t *testing.T) {
	setupOnce.Do(testSetup)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); cacheB.Hit() }()
	}
	wg.Wait()
}
