//go:build go1.21

package loopvar

import (
	"sync"
	"testing"
)

// TestFileGo121: the build line gives this file Go 1.21's loop variables,
// whatever the module's go line says: one per loop.
func TestFileGo121(t *testing.T) {
	var s sum
	var wg sync.WaitGroup
	for _, v := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.add(v)
		}()
	}
	wg.Wait()
}
