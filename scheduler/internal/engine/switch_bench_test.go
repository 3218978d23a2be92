package engine

import (
	"testing"

	"github.com/xbtest/xbtest/scheduler/internal/exitblock"
)

// BenchmarkControlledSwitch is the cost of one controlled switch: two
// controlled goroutines hand the token to each other (wake the other, park
// itself), with nothing else done.
func BenchmarkControlledSwitch(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Watchdog = 0
	var r run
	r.reset(exitblock.New(exitblock.Options{FairBlocks: cfg.FairBlocks}), nil, NewLearnt(), &Stats{}, &cfg, "switch", nil, nil)
	active.Store(&r)
	defer active.Store(nil)
	n := b.N
	done := make(chan struct{})
	var t1, t2 *thread
	t1 = r.newThread(nil, func() {
		for i := 0; i < n; i += 2 {
			r.switchTo(t1, t2)
		}
		close(done)
		t1.sleep()
	})
	t2 = r.newThread(nil, func() {
		for {
			r.switchTo(t2, t1)
		}
	})
	r.cur = t1
	b.ResetTimer()
	r.resume(t1)
	<-done
	b.StopTimer()
	r.teardown()
}
