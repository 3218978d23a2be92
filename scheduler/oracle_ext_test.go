package scheduler_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// Programs whose test goroutine joins its goroutines and then records what
// it observes. Every outcome some schedule reaches is an assertion the test
// goroutine could make, so by the thesis's Theorems 3 and 4 every algorithm
// of the family must reach the same set of outcomes as exhaustive
// enumeration (the oracle).
var outcomePrograms = []struct {
	name string
	prog func(out func(string)) func(*xb.T)
}{
	{"lock-updates", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			mu, x := xb.New(new(xb.Mutex)), xb.New(new(int))
			wr(x, 1)
			sp := xb.New(new(spawner))
			for _, f := range []func(int) int{func(v int) int { return v * 2 }, func(v int) int { return v + 3 }, func(v int) int { return v - 1 }} {
				sp.goWait(func() {
					mu.Lock()
					wr(x, f(rd(x)))
					mu.Unlock()
				})
			}
			sp.wg.Wait()
			out(fmt.Sprint(rd(x)))
		}
	}},
	{"splitsync", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			mu, x := xb.New(new(xb.Mutex)), xb.New(new(int))
			sp := xb.New(new(spawner))
			for range 2 {
				sp.goWait(func() {
					mu.Lock()
					y := rd(x)
					mu.Unlock()
					mu.Lock()
					wr(x, y+1)
					mu.Unlock()
				})
			}
			sp.wg.Wait()
			out(fmt.Sprint(rd(x)))
		}
	}},
	{"buffered-fan-in", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			ch := xb.MakeChan[int](3)
			for i := range 3 {
				xb.Go(func() { xb.Send(ch, i) })
			}
			out(fmt.Sprint(xb.Recv(ch), xb.Recv(ch), xb.Recv(ch)))
		}
	}},
	{"unbuffered-fan-in", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			ch := xb.MakeChan[int](0)
			for i := range 2 {
				xb.Go(func() { xb.Send(ch, i) })
			}
			out(fmt.Sprint(xb.Recv(ch), xb.Recv(ch)))
		}
	}},
	{"select-ready", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			a, b := xb.MakeChan[string](1), xb.MakeChan[string](1)
			done := xb.MakeChan[bool](0)
			xb.Go(func() { xb.Send(a, "a"); xb.Send(done, true) })
			xb.Go(func() { xb.Send(b, "b"); xb.Send(done, true) })
			xb.Recv(done)
			xb.Recv(done)
			var s string
			switch i, _ := xb.Select(false, xb.RecvCase(a, &s), xb.RecvCase(b, &s)); i {
			case 0, 1:
				out(s)
			}
		}
	}},
	{"select-blocking", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			a, b := xb.MakeChan[string](0), xb.MakeChan[string](0)
			xb.Go(func() { xb.Send(a, "a") })
			xb.Go(func() { xb.Send(b, "b") })
			var s1, s2 string
			xb.Select(false, xb.RecvCase(a, &s1), xb.RecvCase(b, &s1))
			xb.Select(false, xb.RecvCase(a, &s2), xb.RecvCase(b, &s2))
			out(s1 + s2)
		}
	}},
	{"cond-signal", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			mu := xb.New(new(xb.Mutex))
			c, waiting := xb.NewCond(mu), xb.NewCond(mu)
			order, ready := xb.New(new(int)), xb.New(new(int))
			sp := xb.New(new(spawner))
			for i := range 2 {
				sp.goWait(func() {
					mu.Lock()
					wr(ready, rd(ready)+1)
					waiting.Signal()
					c.Wait()
					wr(order, rd(order)*10+i+1)
					mu.Unlock()
				})
			}
			mu.Lock()
			for rd(ready) < 2 {
				waiting.Wait()
			}
			c.Signal()
			mu.Unlock()
			mu.Lock()
			c.Signal()
			mu.Unlock()
			sp.wg.Wait()
			out(fmt.Sprint(rd(order)))
		}
	}},
	{"cond-signal-unlocked", func(out func(string)) func(*xb.T) {
		// Go-specific: signalled without its lock, the waiter can run
		// before the signaller's next lock exit (corpus/gosync).
		return func(t *xb.T) {
			mu := xb.New(new(xb.Mutex))
			c := xb.NewCond(mu)
			items := xb.New(new(int))
			waiting := xb.MakeChan[bool](0)
			sp := xb.New(new(spawner))
			sp.goWait(func() {
				mu.Lock()
				xb.Send(waiting, true)
				for rd(items) == 0 {
					c.Wait()
				}
				wr(items, rd(items)-1)
				mu.Unlock()
			})
			xb.Recv(waiting)
			mu.Lock()
			wr(items, rd(items)+1)
			mu.Unlock()
			c.Signal()
			mu.Lock()
			seen := rd(items)
			mu.Unlock()
			sp.wg.Wait()
			out(fmt.Sprint(seen))
		}
	}},
	{"rwmutex-waiting-writer", func(out func(string)) func(*xb.T) {
		// Go-specific: a writer that waits for a reader blocks the
		// reader's next read lock until it has written (corpus/gosync).
		return func(t *xb.T) {
			rw, x := xb.New(new(xb.RWMutex)), xb.New(new(int))
			sp := xb.New(new(spawner))
			var first, second int
			sp.goWait(func() {
				rw.Lock()
				wr(x, 7)
				rw.Unlock()
			})
			rw.RLock()
			first = rd(x)
			if rw.TryRLock() {
				second = rd(x)
				rw.RUnlock()
			} else {
				second = -1
			}
			rw.RUnlock()
			sp.wg.Wait()
			out(fmt.Sprint(first, second))
		}
	}},
	{"spawn-then-lock", func(out func(string)) func(*xb.T) {
		// Go-specific: the child can run between the go statement and the
		// parent's next lock exit (see the spawn branches in internal/exitblock).
		return func(t *xb.T) {
			mu, cfg := xb.New(new(xb.Mutex)), xb.New(new(int))
			seen := xb.New(new(int))
			sp := xb.New(new(spawner))
			sp.goWait(func() {
				mu.Lock()
				wr(seen, rd(cfg))
				mu.Unlock()
			})
			mu.Lock()
			wr(cfg, 1)
			mu.Unlock()
			sp.wg.Wait()
			out(fmt.Sprint(rd(seen)))
		}
	}},
	{"atomics", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			v := xb.New(new(xb.Int64))
			lost := xb.New(new(int64))
			sp := xb.New(new(spawner))
			for range 2 {
				sp.goWait(func() {
					v.Add(1)
					x := xb.LoadInt64(lost)
					xb.StoreInt64(lost, x+1)
				})
			}
			sp.wg.Wait()
			out(fmt.Sprint(v.Load(), xb.LoadInt64(lost)))
		}
	}},
	{"rwmutex", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			rw, x := xb.New(new(xb.RWMutex)), xb.New(new(int))
			seen := xb.Slice(make([]int, 2))
			sp := xb.New(new(spawner))
			for i := range 2 {
				sp.goWait(func() {
					rw.RLock()
					seen[i] = rd(x)
					rw.RUnlock()
				})
			}
			sp.goWait(func() {
				rw.Lock()
				wr(x, 7)
				rw.Unlock()
			})
			sp.wg.Wait()
			out(fmt.Sprint(seen))
		}
	}},
	{"once-trylock", func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			once, mu := xb.New(new(xb.Once)), xb.New(new(xb.Mutex))
			who, got := xb.New(new(int)), xb.Slice(make([]bool, 2))
			sp := xb.New(new(spawner))
			for i := range 2 {
				sp.goWait(func() {
					once.Do(func() { wr(who, i+1) })
					if mu.TryLock() {
						got[i] = true
						mu.Unlock()
					}
				})
			}
			sp.wg.Wait()
			out(fmt.Sprint(rd(who), got))
		}
	}},
}

func outcomes(t *testing.T, name string, prog func(out func(string)) func(*xb.T), cfg xb.Config) ([]string, *result.Result) {
	t.Helper()
	seen := map[string]bool{}
	res := xb.Explore(name, prog(func(s string) { seen[s] = true }), cfg)
	if res.Internal != "" || !res.Complete {
		t.Fatalf("%s: incomplete exploration: %s %v", name, res.Internal, res.Warnings)
	}
	return slices.Sorted(maps.Keys(seen)), res
}

func TestAlgorithmsReachTheOraclesOutcomes(t *testing.T) {
	algos := []struct {
		name string
		cfg  func() xb.Config
	}{
		{"exitblock", func() xb.Config { c := xb.DefaultConfig(); c.Algorithm = settings.ExitBlock; return c }},
		{"exitblock-dd", func() xb.Config { c := xb.DefaultConfig(); c.Algorithm = settings.ExitBlockDD; return c }},
		{"exitblock-rw", func() xb.Config { c := xb.DefaultConfig(); c.Algorithm = settings.ExitBlockRW; return c }},
		{"exitblock-rw-nosyncdeps", func() xb.Config {
			c := xb.DefaultConfig()
			c.Algorithm, c.SyncDeps = settings.ExitBlockRW, false
			return c
		}},
		{"exitblock-rwdd", xb.DefaultConfig},
	}
	for _, p := range outcomePrograms {
		for _, access := range []bool{false, true} {
			name := p.name
			if access {
				name += "/access"
			}
			t.Run(name, func(t *testing.T) {
				reachOracle(t, p.name, p.prog, algos, access)
			})
		}
	}
}

// reachOracle compares the outcomes of the algorithms with the oracle's, at
// sync or access granularity (-granularity access: every Read and Write is a
// block boundary too).
func reachOracle(t *testing.T, name string, prog func(out func(string)) func(*xb.T), algos []struct {
	name string
	cfg  func() xb.Config
}, access bool) {
	p := struct {
		name string
		prog func(out func(string)) func(*xb.T)
	}{name, prog}
	ocfg := xb.OracleConfig(true)
	ocfg.Granularity = granularity(access)
	{
		{
			want, ores := outcomes(t, p.name, p.prog, ocfg)
			if len(want) < 2 {
				t.Fatalf("oracle reaches only %v: the program does not test anything", want)
			}
			for _, a := range algos {
				cfg := a.cfg()
				cfg.Granularity = granularity(access)
				got, res := outcomes(t, p.name, p.prog, cfg)
				if !slices.Equal(got, want) {
					t.Errorf("%s reaches %v in %d schedules, the oracle %v in %d", a.name, got, res.Schedules, want, ores.Schedules)
				}
				t.Logf("%-24s %4d schedules, outcomes %v", a.name, res.Schedules, got)
				if res.Schedules > ores.Schedules {
					t.Errorf("%s explores %d schedules, more than exhaustive enumeration (%d)", a.name, res.Schedules, ores.Schedules)
				}
			}
		}
	}
}

// TestExitBlockEnumeratesExactlyTheBlockSchedules checks Theorem 2 the other
// way round: the thesis's ExitBlock, with its delayed-thread bookkeeping,
// explores exactly the paths of direct enumeration of every order of atomic
// blocks, each once.
func TestExitBlockEnumeratesExactlyTheBlockSchedules(t *testing.T) {
	for _, p := range outcomePrograms {
		for _, access := range []bool{false, true} {
			body := p.prog(func(string) {})
			ocfg, tcfg := xb.OracleConfig(false), xb.ThesisConfig(settings.ExitBlockDD)
			ocfg.Granularity, tcfg.Granularity = granularity(access), granularity(access)
			want, _ := xb.Paths(body, ocfg)
			got, partial := xb.Paths(body, tcfg)
			slices.Sort(got)
			if len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Errorf("%s (access %v): ExitBlock explores a path twice", p.name, access)
			}
			if access {
				// A lock holder's block can now end while others wait for
				// the lock. ExitBlock knows they are blocked and continues
				// the holder's block; the oracle ends it and finds their
				// branches infeasible. The same schedule, cut differently.
				want, got = mergeRuns(want), mergeRuns(got)
			}
			slices.Sort(want)
			want = slices.Compact(want)
			if !slices.Equal(got, want) || partial != 0 {
				t.Errorf("%s (access %v): ExitBlock explores %d complete paths (+%d partial), enumeration %d", p.name, access, len(got), partial, len(want))
			}
		}
	}
}

// TestSpawnBranchesAreNeeded shows why xbtest adds spawn branches: without
// them (the thesis's algorithm exactly) the child never runs between the go
// statement and the parent's next lock exit, and never sees cfg == 0.
func TestSpawnBranchesAreNeeded(t *testing.T) {
	var prog func(func(string)) func(*xb.T)
	for _, p := range outcomePrograms {
		if p.name == "spawn-then-lock" {
			prog = p.prog
		}
	}
	for _, a := range []settings.Algorithm{settings.ExitBlock, settings.ExitBlockRWDD} {
		got, _ := outcomes(t, "spawn-then-lock", prog, xb.ThesisConfig(a))
		if !slices.Equal(got, []string{"1"}) {
			t.Errorf("%s without spawn branches reaches %v, want only [1]", a, got)
		}
		cfg := xb.DefaultConfig()
		cfg.Algorithm = a
		if got, _ := outcomes(t, "spawn-then-lock", prog, cfg); !slices.Equal(got, []string{"0", "1"}) {
			t.Errorf("%s reaches %v, want [0 1]", a, got)
		}
	}
}

// mergeRuns joins consecutive blocks of one thread in paths printed by Paths.
func mergeRuns(paths []string) []string {
	var out []string
	for _, p := range paths {
		var steps []string
		prev := ""
		for _, d := range strings.Fields(p) {
			th, _, _ := strings.Cut(d, "@")
			if th == prev && strings.HasSuffix(steps[len(steps)-1], "[]") {
				steps[len(steps)-1] = d
				continue
			}
			steps, prev = append(steps, d), th
		}
		out = append(out, strings.Join(steps, " "))
	}
	slices.Sort(out)
	return out
}

// granularity is Access when access is set.
func granularity(access bool) settings.Granularity {
	if access {
		return settings.Access
	}
	return settings.Sync
}
