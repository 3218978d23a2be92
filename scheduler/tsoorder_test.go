package scheduler_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// Store buffers only where races are, eager flushes first (package scheduler/internal/storebuf).

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

// TestDataRaceFreeStoresCostNothing: a program no execution of which races
// explores under tso and pso exactly the schedules it explores under sc.
// Before tsoorder.go, tso and pso explored 56, 608, 7,808 and 108,032
// schedules for k = 1..4 (every flush a choice, the latest first).
func TestDataRaceFreeStoresCostNothing(t *testing.T) {
	want := []int{14, 38, 122, 422}
	for _, m := range models {
		for k := 1; k <= 4; k++ {
			cfg := xb.DefaultConfig()
			cfg.Memory = m
			res := xb.Explore("lockedStores", lockedStores(k), cfg)
			if res.Internal != "" || !res.Complete || len(res.Findings) != 0 {
				t.Fatalf("%s k=%d: %s, complete %v, findings %v", m, k, res.Internal, res.Complete, res.Findings)
			}
			if res.Schedules != want[k-1] {
				t.Errorf("%s k=%d: %d schedules, want %d", m, k, res.Schedules, want[k-1])
			}
			if m != settings.SC && !hasNote(res, "no execution races") {
				t.Errorf("%s k=%d: no note on the store buffers: %q", m, k, res.Notes)
			}
		}
	}
}

func hasNote(res *result.Result, s string) bool {
	return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// learnOutcomes explores prog with happens-before race detection, which
// lets passes after the first force the flushes of locations no race is
// known on, and without, where every flush after pass 0 is a choice.
func learnOutcomes(t *testing.T, name string, prog func(out func(string)) func(*xb.T), cfg xb.Config, m settings.Memory) (learnt, full []string, lres *result.Result) {
	t.Helper()
	cfg = litConfig(cfg, m)
	full, _ = outcomes(t, name, prog, cfg)
	cfg.Race = eraser.HB
	learnt, lres = outcomes(t, name, prog, cfg)
	return learnt, full, lres
}

// TestLitmusOutcomesWhenRacesAreLearnt: with races learnt, every litmus
// test reaches exactly the abstract machine's outcomes.
func TestLitmusOutcomesWhenRacesAreLearnt(t *testing.T) {
	for i := range litmusTests {
		lt := &litmusTests[i]
		for _, m := range []settings.Memory{settings.TSO, settings.PSO} {
			want := refOutcomes(lt, m)
			got, full, res := learnOutcomes(t, lt.name, lt.body, xb.DefaultConfig(), m)
			if !slices.Equal(got, want) || !slices.Equal(full, want) {
				t.Errorf("%s %s: races learnt: %v in %d schedules; every flush a choice: %v; the machine allows %v", lt.name, m, got, res.Schedules, full, want)
			}
		}
	}
}

// TestLitmusDifferentialWhenRacesAreLearnt is TestLitmusDifferential with
// happens-before race detection on, for every -algo.
func TestLitmusDifferentialWhenRacesAreLearnt(t *testing.T) {
	n := litmusSeeds(t)
	compared := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		lt := genLitmus(seed)
		for _, m := range []settings.Memory{settings.TSO, settings.PSO} {
			want := refOutcomes(&lt, m)
			for _, a := range diffAlgos {
				cfg := litConfig(xb.DefaultConfig(), m)
				cfg.Algorithm, cfg.MaxSchedules, cfg.Race = a, maxLitmusSchedules, eraser.HB
				got, res := boundedOutcomes(lt.name, lt.body, cfg)
				if res.Internal != "" {
					t.Fatalf("%s -memory %s -algo %s: %s", lt.String(), m, a, res.Internal)
				}
				if !res.Complete {
					continue
				}
				compared++
				if !slices.Equal(got, want) {
					t.Errorf("%s\n  -memory %s -algo %s: %d schedules reach %v, the machine allows %v", lt.String(), m, a, res.Schedules, got, want)
				}
			}
		}
	}
	if compared < n*len(diffAlgos) {
		t.Errorf("only %d of %d explorations compared", compared, 2*n*len(diffAlgos))
	}
}

// nestedSB races on z and w only in executions that SB's relaxed outcome
// starts: pass 0 (synchronization granularity, every flush forced) never
// races there, pass 1 (x and y learnt) does, and only pass 2, with z and w
// learnt too, reaches the nested relaxed outcome r2=0 r3=0.
func nestedSB(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([4]int64)) // x, y, z, w
		var r [4]int64
		for i := range r {
			r[i] = -1
		}
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			if r[0] = xb.Load(&mem[1], 0); r[0] == 0 {
				xb.Store(&mem[2], 1, 0)
				r[2] = xb.Load(&mem[3], 0)
			}
		})
		sp.goWait(func() {
			xb.Store(&mem[1], 1, 0)
			if r[1] = xb.Load(&mem[0], 0); r[1] == 0 {
				xb.Store(&mem[3], 1, 0)
				r[3] = xb.Load(&mem[2], 0)
			}
		})
		sp.wg.Wait()
		out(fmt.Sprint(r))
	}
}

// TestRacesOnlyRelaxedExecutionsShowAreLearnt: the nested relaxed outcome
// needs the pass that learnt z and w.
func TestRacesOnlyRelaxedExecutionsShowAreLearnt(t *testing.T) {
	for _, m := range []settings.Memory{settings.TSO, settings.PSO} {
		got, full, res := learnOutcomes(t, "nestedSB", nestedSB, xb.DefaultConfig(), m)
		if !slices.Equal(got, full) {
			t.Errorf("%s: races learnt: %v; every flush a choice: %v", m, got, full)
		}
		if !slices.Contains(got, "[0 0 0 0]") {
			t.Errorf("%s: the nested relaxed outcome [0 0 0 0] is not among %v", m, got)
		}
		if !hasNote(res, "in 2 pass(es) exploring the orders of the flushes of the 4 words found racy") {
			t.Errorf("%s: want a note on 2 passes after pass 0 and 4 racy words, have %q", m, res.Notes)
		}
	}
}

// splitIncrement loses an update: each goroutine reads x in one critical
// section and writes x+1 in the next.
func splitIncrement(t *xb.T) {
	sp := xb.New(new(spawner))
	mu := xb.New(new(xb.Mutex))
	x := xb.New(new(int64))
	for range 2 {
		sp.goWait(func() {
			mu.Lock()
			v := xb.Load(x, 0)
			mu.Unlock()
			mu.Lock()
			xb.Store(x, v+1, 0)
			mu.Unlock()
		})
	}
	sp.wg.Wait()
	if v := xb.Load(x, 0); v != 2 {
		t.Errorf("x = %d, want 2", v)
	}
}

// TestBugFoundAtTheSameScheduleAsUnderSC: what sc finds in a program that
// does not race, tso and pso find at the same schedule.
func TestBugFoundAtTheSameScheduleAsUnderSC(t *testing.T) {
	for _, m := range models {
		cfg := xb.DefaultConfig()
		cfg.Memory = m
		res := xb.Explore("splitIncrement", splitIncrement, cfg)
		if len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion {
			t.Fatalf("%s: want one assertion, have %v", m, res.Findings)
		}
		if f := res.Findings[0]; f.Schedule != 3 || res.Schedules != 38 {
			t.Errorf("%s: found at schedule %d of %d, want 3 of 38", m, f.Schedule, res.Schedules)
		}
	}
}

// nestedSBFails fails on nestedSB's nested relaxed outcome.
func nestedSBFails(t *xb.T) {
	nestedSB(func(s string) {
		if s == "[0 0 0 0]" {
			t.Errorf("nested relaxed outcome %s", s)
		}
	})(t)
}

// TestPassesAcrossCheckpointStrategies: what passes learn travels with
// forked processes: every backer explores the same schedules and finds
// the same thing at the same schedule.
func TestPassesAcrossCheckpointStrategies(t *testing.T) {
	ms, only, bound, note := []settings.Memory{settings.TSO, settings.PSO}, "", 0, "in 2 pass(es)"
	if testing.Short() || !longSuite {
		// A fork per schedule costs tens of milliseconds here: the first
		// 60 schedules reach pass 2 (z and w learnt in pass 1).
		ms, only, bound, note = ms[:1], "fork", 60, "stopped in pass 2 of the store buffers, 4 racy words known"
	}
	for _, m := range ms {
		cfg := xb.DefaultConfig()
		cfg.Memory, cfg.MaxSchedules = m, bound
		want := xb.Explore("nestedSBFails", nestedSBFails, cfg)
		asserts := slices.DeleteFunc(slices.Clone(want.Findings), func(f *result.Finding) bool { return f.Kind != result.Assertion })
		if len(asserts) != 1 || !hasNote(want, note) {
			t.Fatalf("%s: want one assertion and a note %q, have %v %q", m, note, asserts, want.Notes)
		}
		for bname, mk := range backers() {
			if strings.HasSuffix(bname, "+snapshots") || only != "" && bname != only {
				continue
			}
			c := cfg
			c.Backer = mk()
			res := xb.Explore("nestedSBFails", nestedSBFails, c)
			if res.Internal != "" {
				t.Fatalf("%s under %s: %s", m, bname, res.Internal)
			}
			if got, w := outcome(res), outcome(want); got != w {
				t.Errorf("%s under %s:\n%s\nwant (rerun):\n%s", m, bname, got, w)
			}
			if !hasNote(res, note) {
				t.Errorf("%s under %s: notes %q", m, bname, res.Notes)
			}
		}
	}
}
