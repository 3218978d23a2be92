package scheduler_test

import (
	"fmt"
	"testing"

	xb "github.com/xbtest/xbtest/scheduler"
)

func perfPlain(n, l int) func(*xb.T) {
	return func(t *xb.T) {
		locks := xb.Slice(make([]xb.Mutex, l))
		for i := 0; i < n; i++ {
			xb.Go(func() {
				for j := range locks {
					locks[j].Lock()
					locks[j].Unlock()
				}
			})
		}
	}
}

func TestQuickPerf(t *testing.T) {
	for _, c := range [][2]int{{2, 1}, {2, 2}, {3, 1}, {3, 3}, {4, 2}} {
		cfg := xb.DefaultConfig()
		cfg.Algorithm = xb.ExitBlockRW
		cfg.SyncDeps = false
		res := xb.Explore("perf", perfPlain(c[0], c[1]), cfg)
		fmt.Println(c, res.Schedules, res.Aborted, res.Complete, res.Internal, res.Findings)
	}
}

func perfJava(n, l int) func(*xb.T) {
	return func(t *xb.T) {
		locks := xb.Slice(make([]xb.Mutex, l))
		threads := xb.Slice(make([]xb.Mutex, n)) // the Thread objects' monitors
		for i := 0; i < n; i++ {
			thr := &threads[i]
			thr.Lock() // Thread.start() is synchronized
			xb.Go(func() {
				for j := range locks {
					locks[j].Lock()
					locks[j].Unlock()
				}
				thr.Lock() // notifyAll on its Thread object as it dies
				thr.Unlock()
			})
			thr.Unlock()
		}
	}
}

func TestQuickJava(t *testing.T) {
	for _, c := range [][2]int{{2, 1}, {2, 2}, {3, 1}, {3, 3}, {4, 2}, {5, 2}, {3, 50}} {
		cfg := xb.DefaultConfig()
		cfg.Algorithm = xb.ExitBlockRW
		cfg.SyncDeps = false
		res := xb.Explore("perf", perfJava(c[0], c[1]), cfg)
		fmt.Println(c, res.Schedules, res.Aborted, res.Complete, res.Internal, res.Findings, res.Elapsed)
	}
}
