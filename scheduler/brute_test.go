package scheduler_test

import (
	"slices"
	"testing"

	xb "github.com/xbtest/xbtest/scheduler"
)

func bruteConfig(access bool) xb.Config {
	cfg := xb.DefaultConfig()
	cfg.Algorithm = xb.Brute
	cfg.AccessGranularity = access
	return cfg
}

// The brute-force explorer reaches the oracle's outcomes on the race-free
// programs, exploring at least as many schedules (it branches at every
// synchronization operation, the oracle only at block ends).
func TestBruteReachesTheOraclesOutcomes(t *testing.T) {
	for _, p := range outcomePrograms {
		for _, access := range []bool{false, true} {
			ocfg := xb.OracleConfig(true)
			ocfg.AccessGranularity = access
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
	if res.Count(xb.KindLockCycle) == 0 {
		t.Fatalf("brute: no lock cycle in %d schedules: %v", res.Schedules, res.Findings)
	}
}

func TestParseBrute(t *testing.T) {
	a, err := xb.ParseAlgorithm("brute")
	if err != nil || a != xb.Brute || a.String() != "brute" || !a.DetectsDeadlocks() {
		t.Fatalf("ParseAlgorithm(brute) = %v, %v", a, err)
	}
}
