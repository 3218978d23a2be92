package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/corpus/litmus"
)

// TestLitmusOutcomes runs the litmus corpus through the command under each
// memory model, collects the outcome of every explored schedule and checks
// that, per test and model, the set reached is exactly the set the model
// allows (corpus/litmus.Allowed): every allowed outcome is found, no
// forbidden one. Under sc the accesses are block boundaries too
// (-granularity access), else most interleavings of racy code are not
// explored.
func TestLitmusOutcomes(t *testing.T) {
	if !longSuite {
		t.Skip("long suite (go test -tags long); scheduler's TestLitmusOutcomesAreExactlyTheModels checks the models in process")
	}
	root := repoRoot(t)
	t.Chdir(root)
	for _, m := range []string{"sc", "tso", "pso"} {
		t.Run(m, func(t *testing.T) {
			outFile := filepath.Join(t.TempDir(), "outcomes")
			t.Setenv("XBTEST_LITMUS_OUT", outFile)
			var out, errOut bytes.Buffer
			args := []string{"-memory", m, "-granularity", "access", "-race", "off", "-json", "-o", t.TempDir(), "./corpus/litmus"}
			status := run(args, &out, &errOut)
			// The litmus tests find nothing; TestSBAssumingSC, which asserts
			// SC's outcomes, finds the relaxed one under tso and pso.
			wantStatus := exitOK
			if m != "sc" {
				wantStatus = exitFindings
			}
			if status != wantStatus {
				t.Fatalf("xbtest %v: status %d\n%s\n%s", args, status, out.String(), errOut.String())
			}
			for key, s := range parseJSONLines(t, out.Bytes()) {
				relaxed := key == "corpus/litmus/TestSBAssumingSC" && m != "sc"
				if (len(s.kinds) != 0) != relaxed || !s.Complete {
					t.Errorf("%s: findings %v, complete %v", key, s.kinds, s.Complete)
				}
			}
			b, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatal(err)
			}
			reached := map[string]map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				parts := strings.Split(line, "|")
				if len(parts) != 3 || parts[1] != m {
					t.Fatalf("bad outcome line %q", line)
				}
				if reached[parts[0]] == nil {
					reached[parts[0]] = map[string]bool{}
				}
				reached[parts[0]][parts[2]] = true
			}
			for name, sets := range litmus.Allowed {
				got := slices.Sorted(maps.Keys(reached[name]))
				if want := sets[m]; !slices.Equal(got, want) {
					t.Errorf("%s under %s: reached %v, the model allows %v", name, m, got, want)
				}
			}
			if len(reached) != len(litmus.Allowed) {
				t.Errorf("outcomes of %d tests, the corpus has %d", len(reached), len(litmus.Allowed))
			}
		})
	}
}
