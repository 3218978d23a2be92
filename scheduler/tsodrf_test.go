package scheduler_test

import (
	"testing"

	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// lockedStores is the micro-program of issue 23 item 6: two goroutines,
// k critical sections each, one store per section, disjoint data.
func lockedStores(k int) func(*xb.T) {
	return func(t *xb.T) {
		sp := xb.New(new(spawner))
		mu := xb.New(new(xb.Mutex))
		data := xb.New(new([2][4]int64))
		for g := range 2 {
			sp.goWait(func() {
				for i := range k {
					mu.Lock()
					xb.Store(&data[g][i], int64(i+1), 0)
					mu.Unlock()
				}
			})
		}
		sp.wg.Wait()
	}
}

func TestLockedStoresCounts(t *testing.T) {
	for _, m := range models {
		for k := 1; k <= 4; k++ {
			cfg := xb.DefaultConfig()
			cfg.Memory = m
			cfg.Granularity = settings.Access
			res := xb.Explore("lockedStores", lockedStores(k), cfg)
			t.Logf("%s k=%d: %d schedules (%d aborted) complete=%v findings=%d %s", m, k, res.Schedules, res.Aborted, res.Complete, len(res.Findings), res.Elapsed)
		}
	}
}
