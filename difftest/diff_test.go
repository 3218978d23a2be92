package difftest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

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
	st := check(t, seeds)
	for _, d := range st.Divergences {
		if d.Known != "" {
			t.Logf("%v", d)
			continue
		}
		t.Errorf("%v\n%s", d, Generate(d.Seed).Src)
	}
	_ = strconv.Itoa
}
