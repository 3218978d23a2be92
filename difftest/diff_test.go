package difftest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// regressions are the seeds on which an explorer once diverged from the
// reference. Seeds name programs of this generator: a change to Generate
// changes them, so each entry names the feature its program must still use
// (TestRegressions checks it) and the table is re-derived when it fails.
var regressions = []struct {
	seed    int64
	feature string
	what    string
}{
	// Every explorer missed a TryLock that fails against a lock taken by
	// TryLock when a Lock followed (a failed Lock abandoned the block back
	// to before the TryLock); fixed in scheduler/internal/engine/locks.go.
	{102, "trylock", "missed-outcome (every -algo)"},
	// ExitBlock-RW missed a TryLock failing against a held lock: the
	// release and the lock enter were not writes of the lock.
	{120, "trylock", "missed-outcome (exitblock-rw, -rwdd)"},
	{70, "trylock", "missed-outcome (exitblock-rw, -rwdd)"},
	// ExitBlock-RW missed a TryLock failing while another goroutine held
	// the lock before its Cond.Wait: Wait's release of a tried lock was
	// not a write of it (the long run found it).
	{1002042, "trylock", "missed-outcome (exitblock-rw, -rwdd)"},
	{1003279, "trylock", "missed-outcome (exitblock-rw, -rwdd)"},
	// A waiting RWMutex writer blocks new readers, so a recursive RLock
	// deadlocks; -dd and -rwdd missed the lock cycle (issue 18; a read
	// lock of an RWMutex also write-locked ends a block now, locks.go).
	{1000204, "recursive-rlock", "missed-finding lock-cycle (exitblock-dd, -rwdd)"},
	{1000415, "recursive-rlock", "missed-finding lock-cycle (exitblock-dd, -rwdd)"},
}

// shortSeeds is how many generated programs go test ./... checks.
const shortSeeds = 200

func seedRange(from, n int64) []int64 {
	var s []int64
	for i := range n {
		s = append(s, from+i)
	}
	return s
}

func check(t *testing.T, seeds []int64) *Stats {
	t.Helper()
	start := time.Now()
	st, err := Check(context.Background(), t.TempDir(), seeds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d seeds: %d programs compared (%d racy, %d too big for the reference), %d reference outcomes and findings compared, reference %d schedules, others %v; build %v, explore %v, total %v",
		len(seeds), st.Programs, st.Racy, st.TooBig, st.Outcomes, st.RefScheds, st.Schedules, st.Build.Round(time.Millisecond), st.Run.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if len(st.RacyUnmeant) > 0 {
		t.Logf("racing though not generated to race: %v", st.RacyUnmeant)
	}
	return st
}

// TestDifferential compares every explorer with the brute-force reference
// on generated programs. XBDIFF_SEEDS=from:n picks other seeds.
func TestDifferential(t *testing.T) {
	seeds := seedRange(1, shortSeeds)
	if s := os.Getenv("XBDIFF_SEEDS"); s != "" {
		var from, n int64
		if _, err := fmt.Sscanf(s, "%d:%d", &from, &n); err != nil {
			t.Fatalf("XBDIFF_SEEDS=%q: want from:n", s)
		}
		seeds = seedRange(from, n)
	}
	report(t, check(t, seeds))
}

// report fails on every divergence.
func report(t *testing.T, st *Stats) {
	t.Helper()
	for _, d := range st.Divergences {
		t.Errorf("%v\n%s", d, Generate(d.Seed).Src)
	}
}

// TestRegressions re-checks every seed that once diverged.
func TestRegressions(t *testing.T) {
	var seeds []int64
	for _, r := range regressions {
		if p := Generate(r.seed); !p.has(r.feature) {
			t.Errorf("seed %d no longer uses %s (the generator changed): re-derive the table", r.seed, r.feature)
		}
		seeds = append(seeds, r.seed)
	}
	if len(seeds) == 0 {
		t.Skip("no regression seeds")
	}
	report(t, check(t, seeds))
}

// TestDifferentialLong is the long run: XBDIFF_LONG programs (10,000 by
// default) from seed 1,000,000 on, built and checked a thousand at a time.
func TestDifferentialLong(t *testing.T) {
	if !longSuite {
		t.Skip("the long run needs -tags long")
	}
	n := 10000
	if s := os.Getenv("XBDIFF_LONG"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	total := &Stats{Schedules: map[string]int{}}
	for from := 0; from < n; from += 1000 {
		st := check(t, seedRange(int64(1000000+from), int64(min(1000, n-from))))
		report(t, st)
		total.Programs += st.Programs
		total.TooBig += st.TooBig
		total.Racy += st.Racy
		total.Outcomes += st.Outcomes
		total.RefScheds += st.RefScheds
		for k, v := range st.Schedules {
			total.Schedules[k] += v
		}
		total.Divergences = append(total.Divergences, st.Divergences...)
	}
	t.Logf("long run: %d seeds, %d programs compared (%d racy, %d too big), %d reference outcomes and findings compared, %d divergences, reference %d schedules, others %v, %v",
		n, total.Programs, total.Racy, total.TooBig, total.Outcomes, len(total.Divergences), total.RefScheds, total.Schedules, time.Since(start).Round(time.Second))
}
