package scheduler_test

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// benchCut is the depth of the split BenchmarkShards measures (0: the
// default); XBTEST_BENCH_CUT sets it, to compare.
var benchCut, _ = strconv.Atoi(os.Getenv("XBTEST_BENCH_CUT"))

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkShards explores BufferNotify (75,293 schedules) whole and as 2
// and 4 shards, one after the other, and reports the CPU time of the
// largest shard (what n processes on n idle cores take: -parallel n, or n
// machines), the shards' total (the whole plus the top of the tree every
// shard runs), and the schedules a second n processes would explore.
//
//	go test ./scheduler -run '^$' -bench Shards -benchtime 1x
func BenchmarkShards(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("shards=%d", n), func(b *testing.B) {
			for range b.N {
				var most, total time.Duration
				schedules := 0
				for i := range n {
					cfg := xb.DefaultConfig()
					if n > 1 {
						cfg.Shard = result.Shard{Index: i, Count: n, Cut: benchCut}
					}
					t0 := cpuTime()
					res := xb.Explore("bufferNotify", bufferNotify, cfg)
					d := cpuTime() - t0
					if res.Internal != "" || !res.Complete {
						b.Fatalf("shard %d/%d: %s", i, n, res.Internal)
					}
					most, total, schedules = max(most, d), total+d, schedules+res.Schedules
				}
				b.ReportMetric(most.Seconds(), "cpu-s-largest-shard")
				b.ReportMetric(total.Seconds(), "cpu-s-all-shards")
				b.ReportMetric(float64(schedules)/most.Seconds(), "schedules/s")
			}
		})
	}
}
