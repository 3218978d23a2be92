package scheduler_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

func bruteConfig(access bool) xb.Config {
	cfg := xb.DefaultConfig()
	cfg.Algorithm = settings.Brute
	cfg.Granularity = granularity(access)
	return cfg
}

// The brute-force explorer reaches the oracle's outcomes on the race-free
// programs, exploring at least as many schedules (it branches at every
// synchronization operation, the oracle only at block ends).
func TestBruteReachesTheOraclesOutcomes(t *testing.T) {
	for _, p := range outcomePrograms {
		for _, access := range []bool{false, true} {
			ocfg := xb.OracleConfig(true)
			ocfg.Granularity = granularity(access)
			want, ores := outcomes(t, p.name, p.prog, ocfg)
			got, bres := outcomes(t, p.name, p.prog, bruteConfig(access))
			if !slices.Equal(got, want) {
				t.Errorf("%s (access %v): brute reaches %v, the oracle %v", p.name, access, got, want)
			}
			if bres.Schedules < ores.Schedules {
				t.Errorf("%s (access %v): brute explores %d schedules, fewer than the oracle (%d)", p.name, access, bres.Schedules, ores.Schedules)
			}
		}
	}
}

// A read lock taken twice while a writer waits deadlocks in Go (a pending
// writer blocks new readers). The only place the writer can announce itself
// is between the two RLocks, inside one atomic block of the reader: the
// brute-force explorer, which has a point before every lock enter, finds
// the cycle. (Issue 18: the ExitBlock family missed it when the writer was
// started before the first RLock.)
func TestBruteFindsRecursiveRLock(t *testing.T) {
	body := func(t *xb.T) {
		rw := xb.New(new(xb.RWMutex))
		sp := xb.New(new(spawner))
		sp.goWait(func() { rw.Lock(); rw.Unlock() })
		rw.RLock()
		rw.RLock()
		rw.RUnlock()
		rw.RUnlock()
		sp.wg.Wait()
	}
	res := explore(t, "recursive-rlock", body, bruteConfig(false))
	if res.Count(result.LockCycle) == 0 {
		t.Fatalf("brute: no lock cycle in %d schedules: %v", res.Schedules, res.Findings)
	}
}

func TestParseBrute(t *testing.T) {
	var a settings.Algorithm
	err := a.UnmarshalText([]byte("brute"))
	if err != nil || a != settings.Brute || a.String() != "brute" || !a.DetectsDeadlocks() {
		t.Fatalf("UnmarshalText(brute) = %v, %v", a, err)
	}
}

// TryLock observes a held lock, which breaks ExitBlock's "a critical section
// is atomic". Two programs the differential test (difftest seeds 102 and
// 120) found where every algorithm missed an outcome the brute-force
// explorer reaches: a TryLock failing against a lock taken by TryLock and
// then a Lock that blocks (the failed Lock abandoned the block back to
// before the TryLock), and under -sync-deps=false a TryLock failing against
// a lock taken by Lock (the Lock was not in the read/write sets).
func TestTryLockOrders(t *testing.T) {
	prog := func(first func(mu *xb.Mutex, x *int, obs []int), second func(mu *xb.Mutex, x *int, obs []int)) func(out func(string)) func(*xb.T) {
		return func(out func(string)) func(*xb.T) {
			return func(t *xb.T) {
				mu, x := xb.New(new(xb.Mutex)), xb.New(new(int))
				obs := xb.Slice(make([]int, 3))
				sp := xb.New(new(spawner))
				sp.goWait(func() { first(mu, x, obs) })
				sp.goWait(func() { second(mu, x, obs) })
				sp.wg.Wait()
				out(fmt.Sprint(rd(x), obs))
			}
		}
	}
	try := func(i, v int) func(mu *xb.Mutex, x *int, obs []int) {
		return func(mu *xb.Mutex, x *int, obs []int) {
			if mu.TryLock() {
				wr(x, rd(x)*3+v)
				mu.Unlock()
			} else {
				obs[i] = 7
			}
		}
	}
	lock := func(v int) func(mu *xb.Mutex, x *int, obs []int) {
		return func(mu *xb.Mutex, x *int, obs []int) {
			mu.Lock()
			wr(x, rd(x)*3+v)
			mu.Unlock()
		}
	}
	seq := func(fs ...func(mu *xb.Mutex, x *int, obs []int)) func(mu *xb.Mutex, x *int, obs []int) {
		return func(mu *xb.Mutex, x *int, obs []int) {
			for _, f := range fs {
				f(mu, x, obs)
			}
		}
	}
	progs := []struct {
		name string
		prog func(out func(string)) func(*xb.T)
		miss string // the outcome missed before
	}{
		{"trylock-then-lock", prog(seq(try(1, 2), lock(2)), try(2, 3)), "11 [0 7 0]"},
		{"lock-then-trylock", prog(seq(lock(2), try(1, 2)), lock(3)), "9 [0 7 0]"},
	}
	for _, p := range progs {
		want, _ := outcomes(t, p.name, p.prog, bruteConfig(false))
		if !slices.Contains(want, p.miss) {
			t.Fatalf("%s: brute reaches %v, without %s", p.name, want, p.miss)
		}
		for _, a := range []settings.Algorithm{settings.ExitBlock, settings.ExitBlockRW, settings.ExitBlockDD, settings.ExitBlockRWDD} {
			for _, sd := range []bool{true, false} {
				cfg := xb.DefaultConfig()
				cfg.Algorithm, cfg.SyncDeps = a, sd
				if got, _ := outcomes(t, p.name, p.prog, cfg); !slices.Equal(got, want) {
					t.Errorf("%s: %v (sync-deps %v) reaches %v, brute %v", p.name, a, sd, got, want)
				}
			}
		}
	}
}
