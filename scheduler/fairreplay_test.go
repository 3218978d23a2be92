package scheduler_test

import (
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// A finding's schedule joins consecutive blocks of one goroutine (as a
// schedule file does); its replay must make the same fairness decisions as
// the execution it came from. The eager clock waits for a goroutine that
// has waited FairBlocks blocks: counted in blocks, a joined schedule
// reached that bound later and the clock fired where it had not, and the
// replay diverged (seen on sourcegraph/conc's pool tests: nine workers
// sleeping 1ms each, a leak reported "NOT REPRODUCED" with an empty
// schedule).
func TestJoinedScheduleReplaysUnderEagerTimerFairness(t *testing.T) {
	for fb := 1; fb <= 6; fb++ {
		cfg := xb.DefaultConfig()
		cfg.FairBlocks = fb
		cfg.MaxSchedules = 3000
		res := xb.Explore(t.Name(), func(t *xb.T) {
			leak := xb.MakeChan[int](0)
			xb.Go(func() { xb.Recv(leak) })
			mu := new(xb.Mutex)
			done := xb.MakeChan[int](3)
			for range 3 {
				xb.Go(func() {
					for range 2 {
						mu.Lock()
						mu.Unlock()
					}
					xb.TimeSleep(time.Millisecond)
					mu.Lock()
					mu.Unlock()
					xb.Send(done, 1)
				})
			}
			for range 3 {
				xb.Recv(done)
			}
		}, cfg)
		if res.Internal != "" {
			t.Fatalf("fair-blocks %d: %s", fb, res.Internal)
		}
		if len(res.Findings) != 1 || res.Findings[0].Kind != result.Leak {
			t.Fatalf("fair-blocks %d: findings %v, want one leak", fb, res.Findings)
		}
		if f := res.Findings[0]; f.Unreproduced != "" || len(f.Blocks) == 0 {
			t.Errorf("fair-blocks %d: the leak's schedule (%d blocks) does not replay: %s", fb, len(f.Blocks), f.Unreproduced)
		}
	}
}
