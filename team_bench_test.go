package xbtest

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest/settings"
)

// BenchmarkTeam explores one big test of the corpus with -parallel 1 and
// 2: ns/op is the wall time of the exploration (the build is cached
// before the timer starts), cpu-s/op the CPU time of the test binaries.
// The machine may be loaded, so it also reports what shows the balance
// whatever the load: the schedules each process explored (sched-m0,
// sched-m1), the parts of the tree each claimed, the CPU time each took
// (cpu-s-m0, cpu-s-m1: on idle cores the first's is about the wall time,
// the second joining it and ending with it), and how long each was idle
// before the last was done (idle-ms-m0, idle-ms-m1).
//
//	go test . -run '^$' -bench Team -benchtime 3x
func BenchmarkTeam(b *testing.B) {
	cases := []struct{ name, pkg, test string }{
		{"MarkTypeII", "./corpus/gc/phases", "TestMarkTypeII"},               // 30,873 schedules
		{"BufferNotify", "./corpus/thesis/buffernotify", "TestBufferNotify"}, // 75,293
	}
	cache := b.TempDir()
	for _, c := range cases {
		for _, p := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/parallel=%d", c.name, p), func(b *testing.B) {
				explore := func() *Test {
					res, err := Run(context.Background(), Options{Packages: []string{c.pkg}, Run: "^" + c.test + "$", Settings: settings.Default(),
						Parallel: p, ParallelPackages: 1, BuildCache: cache})
					if err != nil {
						b.Fatal(err)
					}
					t := res.Packages[0].Tests[0]
					if t.Result == nil || !t.Result.Complete {
						b.Fatalf("%s: %+v", c.test, t)
					}
					return t
				}
				explore() // the build
				cpu0 := childrenCPU()
				var last *Test
				for b.Loop() {
					last = explore()
				}
				b.ReportMetric((childrenCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(last.Result.Schedules), "schedules")
				b.Logf("%s -parallel %d: %+v", c.test, p, last.Result.Team)
				for i, m := range last.Result.Team {
					b.ReportMetric(m.CPU.Seconds(), fmt.Sprintf("cpu-s-m%d", i))
					b.ReportMetric(float64(m.Schedules), fmt.Sprintf("sched-m%d", i))
					b.ReportMetric(float64(m.Subtrees), fmt.Sprintf("parts-m%d", i))
					b.ReportMetric(float64(m.Idle.Milliseconds()), fmt.Sprintf("idle-ms-m%d", i))
				}
			})
		}
	}
}

// childrenCPU is the CPU time of the processes this one started and
// waited for (the test binaries).
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
