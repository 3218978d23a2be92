// Package long has a test with far more schedules than any test waits for:
// the command is killed while it explores (cmd/xbtest's TestNoOrphans).
package long

import (
	"sync"
	"testing"
)

var rounds int // package-level state: -checkpoint auto forks for every schedule

func TestManySchedules(t *testing.T) {
	var locks [6]sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range locks {
				locks[i].Lock()
				locks[i].Unlock()
			}
		}()
	}
	wg.Wait()
	rounds++
}
