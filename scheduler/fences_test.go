package scheduler_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// bufOutcomes explores body under memory model m (and CAS semantics c) and
// returns the set of outcomes it reported.
func bufOutcomes(t *testing.T, m settings.Memory, c settings.CAS, body func(out func(string)) func(*xb.T)) []string {
	t.Helper()
	seen := map[string]bool{}
	cfg := xb.DefaultConfig()
	cfg.Memory, cfg.CAS, cfg.Race, cfg.Granularity = m, c, 0, settings.Access
	res := xb.Explore("outcomes", body(func(s string) { seen[s] = true }), cfg)
	if res.Internal != "" || !res.Complete {
		t.Fatalf("exploration: %s, complete %v", res.Internal, res.Complete)
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// mpCAS is message passing with the flag written by a CAS: T0 d = 1;
// CAS(f, 0, 1) || T1 r0 = f; r1 = d.
func mpCAS(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([2]int64))
		var r0, r1 int64
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			xb.CompareAndSwapInt64(&mem[1], 0, 1)
		})
		sp.goWait(func() {
			r0 = xb.Load(&mem[1], 0)
			r1 = xb.Load(&mem[0], 0)
		})
		sp.wg.Wait()
		out(fmt.Sprintf("r0=%d r1=%d", r0, r1))
	}
}

// TestRelaxedCAS: the flag CASed while the data store is still buffered
// is seen before the data only under PSO with -cas relaxed (the digest's
// L5); under SC, TSO and PSO with a full CAS, the CAS drains first.
func TestRelaxedCAS(t *testing.T) {
	all := []string{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"}
	ordered := []string{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"}
	for _, c := range []struct {
		m    settings.Memory
		cas  settings.CAS
		want []string
	}{
		{settings.SC, settings.RelaxedCAS, ordered},
		{settings.TSO, settings.RelaxedCAS, ordered},
		{settings.PSO, settings.FullCAS, ordered},
		{settings.PSO, settings.RelaxedCAS, all},
	} {
		if got := bufOutcomes(t, c.m, c.cas, mpCAS); !slices.Equal(got, c.want) {
			t.Errorf("MP+cas, -memory %s -cas %s: outcomes %q, want %q", c.m, c.cas, got, c.want)
		}
	}
}

// sameAddrCAS: T0 x = 1; ok = CAS(x, 1, 2) || T1 y = 1. A relaxed CAS
// still follows the goroutine's own earlier store to its address (L6).
func sameAddrCAS(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([2]int64))
		ok := false
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			ok = xb.CompareAndSwapInt64(&mem[0], 1, 2)
		})
		sp.goWait(func() { xb.Store(&mem[1], 1, 0) })
		sp.wg.Wait()
		out(fmt.Sprintf("ok=%v x=%d", ok, xb.Load(&mem[0], 0)))
	}
}

func TestRelaxedCASSameAddress(t *testing.T) {
	if got := bufOutcomes(t, settings.PSO, settings.RelaxedCAS, sameAddrCAS); !slices.Equal(got, []string{"ok=true x=2"}) {
		t.Errorf("outcomes %q, want only ok=true x=2", got)
	}
}

// mpRel is message passing with a release fence between the stores, and
// sbRel store buffering with one between store and load.
func mpRel(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([2]int64))
		var r0, r1 int64
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			xb.ReleaseFence()
			xb.Store(&mem[1], 1, 0)
		})
		sp.goWait(func() {
			r0 = xb.Load(&mem[1], 0)
			xb.AcquireFence()
			r1 = xb.Load(&mem[0], 0)
		})
		sp.wg.Wait()
		out(fmt.Sprintf("r0=%d r1=%d", r0, r1))
	}
}

func sbRel(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([2]int64))
		var r0, r1 int64
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			xb.ReleaseFence()
			r0 = xb.Load(&mem[1], 0)
		})
		sp.goWait(func() {
			xb.Store(&mem[1], 1, 0)
			xb.ReleaseFence()
			r1 = xb.Load(&mem[0], 0)
		})
		sp.wg.Wait()
		out(fmt.Sprintf("r0=%d r1=%d", r0, r1))
	}
}

// TestReleaseFence: under PSO a release fence keeps MP's stores in order
// (no r0=1 r1=0) but does not order a store before a later load (SB's
// r0=0 r1=0 stays).
func TestReleaseFence(t *testing.T) {
	if got := bufOutcomes(t, settings.PSO, settings.FullCAS, mpRel); slices.Contains(got, "r0=1 r1=0") {
		t.Errorf("MP+rel under pso: outcomes %q include r0=1 r1=0", got)
	}
	for _, m := range []settings.Memory{settings.TSO, settings.PSO} {
		if got := bufOutcomes(t, m, settings.FullCAS, sbRel); !slices.Contains(got, "r0=0 r1=0") {
			t.Errorf("SB+rel under %s: outcomes %q lack r0=0 r1=0", m, got)
		}
	}
}

// TestTraceShowsStoreBuffers replays the R pattern's relaxed outcome
// under TSO (T0 x = 1; y = 1 || T1 y = 2; r0 = x, with r0 = 0 and y = 2
// at the end: the STM copy without its fence): the trace has the buffered
// stores and their commits.
func TestTraceShowsStoreBuffers(t *testing.T) {
	body := func(tt *xb.T) {
		mem := xb.New(new([2]int64))
		var r0 int64
		sp := xb.New(new(spawner))
		sp.goWait(func() {
			xb.Store(&mem[0], 1, 0)
			xb.Store(&mem[1], 1, 0)
		})
		sp.goWait(func() {
			xb.Store(&mem[1], 2, 0)
			r0 = xb.Load(&mem[0], 0)
		})
		sp.wg.Wait()
		if y := xb.Load(&mem[1], 0); r0 == 0 && y == 2 {
			tt.Errorf("R: r0=0 y=2")
		}
	}
	cfg := xb.DefaultConfig()
	cfg.Memory, cfg.Race = settings.TSO, 0
	res := xb.Explore("R", body, cfg)
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want R's relaxed outcome", len(res.Findings))
	}
	f := res.Findings[0]
	got := xb.Replay("R", body, cfg, f.Blocks, result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
	var buffered, committed []string
	for _, s := range got.Replay.Steps {
		switch s.Op {
		case "store buffered":
			buffered = append(buffered, s.G)
		case "flush", "commit (fence)":
			committed = append(committed, s.G)
		}
	}
	// Three stores, each buffered by its goroutine and committed from
	// its buffer; T1's y = 2 commits last.
	if want := []string{"T0.1", "T0.1", "T0.2"}; !slices.Equal(slices.Sorted(slices.Values(buffered)), want) {
		t.Errorf("buffered stores by %q, want %q", buffered, want)
	}
	if len(committed) != 3 || committed[2] != "T0.2 store buffer" {
		t.Errorf("commits from %q, want three, T0.2's last", committed)
	}
}
