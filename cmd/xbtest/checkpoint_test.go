package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// Every checkpoint strategy explores the whole corpus alike: the same
// schedules, the same findings. (Under rerun, the tests that change
// package-level state, a variable or a package's sync.Once, stop after
// their first schedule instead; the manifest checks that.) Forking every
// schedule of the corpus's largest tests (about 100,000 schedules) would
// take minutes, so each test is explored up to 50 schedules: the
// explorer's order is deterministic, so every strategy explores the same
// 50. That is 104 of the 198 tests completely and 6,523 forked schedules
// (at 100: 117 tests and 10,878 forks, the long suite's slowest test).
func TestCheckpointStrategiesOnCorpus(t *testing.T) {
	if testing.Short() || !longSuite {
		t.Skip("runs the corpus three times: long suite (go test -tags long)")
	}
	t.Chdir(repoRoot(t))
	results := map[string]map[string]*summary{}
	for _, cp := range []string{"rerun", "fork", "auto"} {
		var out, errOut bytes.Buffer
		run([]string{"-json", "-checkpoint=" + cp, "-max-schedules=50", "-o", t.TempDir(), "./corpus/..."}, &out, &errOut)
		results[cp] = parseJSONLines(t, out.Bytes())
		if len(results[cp]) == 0 {
			t.Fatalf("-checkpoint=%s: no results\n%s", cp, errOut.String())
		}
	}
	changesState := func(key string) bool {
		return strings.HasPrefix(key, "corpus/state/TestGlobal") || strings.HasPrefix(key, "corpus/state/TestSetupOnce")
	}
	for key, a := range results["rerun"] {
		if changesState(key) {
			if a.Complete {
				t.Errorf("%s: rerun explored it completely (%d schedules); it changes package-level state", key, a.Schedules)
			}
			continue
		}
		for _, cp := range []string{"fork", "auto"} {
			b := results[cp][key]
			if b == nil {
				t.Errorf("%s: no result under -checkpoint=%s", key, cp)
				continue
			}
			ka, kb := slices.Sorted(slices.Values(a.kinds)), slices.Sorted(slices.Values(b.kinds))
			if a.Schedules != b.Schedules || !slices.Equal(ka, kb) || a.Complete != b.Complete {
				t.Errorf("%s: rerun explored %d schedules %v (complete %v), %s %d %v (complete %v)", key, a.Schedules, ka, a.Complete, cp, b.Schedules, kb, b.Complete)
			}
		}
	}
	if len(results["fork"]) != len(results["rerun"]) || len(results["auto"]) != len(results["rerun"]) {
		t.Errorf("tests explored: rerun %d, fork %d, auto %d", len(results["rerun"]), len(results["fork"]), len(results["auto"]))
	}
	for key, a := range results["fork"] {
		if changesState(key) {
			b := results["auto"][key]
			if b == nil || a.Schedules != b.Schedules || !slices.Equal(slices.Sorted(slices.Values(a.kinds)), slices.Sorted(slices.Values(b.kinds))) {
				t.Errorf("%s: fork %d schedules %v, auto %v", key, a.Schedules, a.kinds, b)
			}
		}
	}
}
