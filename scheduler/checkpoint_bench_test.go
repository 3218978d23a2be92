package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/xbtest/xbtest/checkpoint"
	xb "github.com/xbtest/xbtest/scheduler"
)

// withSetup is a test that builds a structure of mb megabytes before it
// starts its goroutines (two goroutines, each taking two locks twice: 166
// schedules under ExitBlock-RWDD), so that every schedule re-run from the
// start pays for building it again.
func withSetup(mb float64) func(*xb.T) {
	return func(t *xb.T) {
		data := make([]int64, int(mb*(1<<20)/8))
		for i := range data {
			data[i] = int64(i)
		}
		sp := xb.New(new(spawner))
		defer sp.wg.Wait()
		a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
		for range 2 {
			sp.goWait(func() {
				for range 2 {
					a.Lock()
					a.Unlock()
					b.Lock()
					b.Unlock()
				}
			})
		}
		if data[len(data)-1] != int64(len(data)-1) {
			t.Errorf("set-up lost")
		}
	}
}

// BenchmarkCheckpoint compares how exploration backs up: schedules per
// second of Performance 3 3 (no set-up) and of tests whose set-up builds
// 1 to 64 MB, under each strategy. The crossover is the set-up cost above
// which fork (with branch-point snapshots) beats re-running the body.
func BenchmarkCheckpoint(b *testing.B) {
	strategies := []struct {
		name string
		mk   func() checkpoint.Backer
	}{
		{"rerun", func() checkpoint.Backer { return checkpoint.Rerun{} }},
		{"fork", func() checkpoint.Backer { return checkpoint.NewFork(false) }},
		{"auto", func() checkpoint.Backer { return checkpoint.NewFork(true) }},
	}
	workloads := []struct {
		name string
		body func(*xb.T)
		algo xb.Algorithm
	}{{"Performance33", perfPlain(3, 3), xb.ExitBlockRWDD}}
	for _, mb := range []float64{0.25, 1, 4, 16, 64} {
		workloads = append(workloads, struct {
			name string
			body func(*xb.T)
			algo xb.Algorithm
		}{fmt.Sprintf("setup%gMB", mb), withSetup(mb), xb.ExitBlockRWDD})
	}
	for _, w := range workloads {
		for _, s := range strategies {
			b.Run(w.name+"/"+s.name, func(b *testing.B) {
				cfg := xb.DefaultConfig()
				cfg.Algorithm = w.algo
				cfg.Backer = s.mk()
				benchSchedules(b, w.body, cfg)
			})
		}
	}
}
