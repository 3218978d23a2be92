package scheduler_test

import (
	"fmt"
	"slices"
	"strings"
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
		if len(data) > 0 && data[len(data)-1] != int64(len(data)-1) {
			t.Errorf("set-up lost")
		}
	}
}

// BenchmarkCheckpoint compares how exploration backs up: schedules per
// second of Performance 3 3 (no set-up) and of tests whose set-up builds
// 0.25 to 50 MB, under each strategy. The crossover is the set-up cost above
// which fork (with branch-point snapshots) beats re-running the body; auto
// should follow the better of the two ("forked" is the share of its
// explorations that handed over to forking).
func BenchmarkCheckpoint(b *testing.B) {
	strategies := []struct {
		name string
		mk   func() checkpoint.Backer
	}{
		{"rerun", func() checkpoint.Backer { return checkpoint.Rerun{} }},
		{"fork", func() checkpoint.Backer { return checkpoint.NewFork(false) }},
		{"auto", func() checkpoint.Backer { return checkpoint.NewFork(true) }},
	}
	type workload struct {
		name string
		body func(*xb.T)
	}
	workloads := []workload{{"Performance33", perfPlain(3, 3)}}
	for _, mb := range []float64{0.25, 0.5, 1, 2, 4, 8, 16, 50} {
		workloads = append(workloads, workload{fmt.Sprintf("setup%gMB", mb), withSetup(mb)})
	}
	for _, w := range workloads {
		for _, s := range strategies {
			b.Run(w.name+"/"+s.name, func(b *testing.B) {
				cfg := xb.DefaultConfig()
				cfg.Backer = s.mk()
				total, forked, runs := 0, 0, 0
				for b.Loop() {
					res := xb.Explore("bench", w.body, cfg)
					if res.Internal != "" || len(res.Findings) > 0 {
						b.Fatal(res.Internal, res.Findings)
					}
					total += res.Schedules
					runs++
					if slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "forked after that") }) {
						forked++
					}
				}
				b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "schedules/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/schedule")
				if s.name == "auto" {
					b.ReportMetric(float64(forked)/float64(runs), "forked")
				}
			})
		}
	}
}
