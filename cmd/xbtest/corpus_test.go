package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// repoRoot is the repository's top directory (the tests run in cmd/xbtest).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// corpusCache is the build cache of TestCorpus's runs and replays ("": none).
var corpusCache string

// TestCorpus runs xbtest over the corpus, once per configuration the
// manifest names, and checks every verdict: the acceptance suite. Every
// finding's schedule file is then replayed in a fresh process.
func TestCorpus(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "corpus", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Entries []manifestEntry }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	groups := map[string][]*manifestEntry{}
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Slow != "" {
			continue // BenchmarkCorpusSlowCells
		}
		groups[e.group()] = append(groups[e.group()], e)
	}
	bin := buildCommand(t)
	t.Chdir(root)
	// One build cache for the test's runs and replays: the configurations
	// of one memory model rebuild the same binaries, and each replay of a
	// finding would rebuild its package (the cache's key covers what the
	// rewrite depends on; its own tests check it).
	corpusCache = t.TempDir()
	defer func() { corpusCache = "" }()
	for flags, entries := range groups {
		if longSuite == (flags == group(settings.Default())) {
			// The default configuration is the acceptance suite of go
			// test ./...; the others run under -tags long, which CI
			// runs after it.
			continue
		}
		t.Run(flags, func(t *testing.T) {
			outDir, out := checkGroup(t, flags, entries)
			checkReplays(t, bin, outDir, strings.Count(out, `"replay_command":"xbtest -replay `))
		})
	}
}

// checkGroup explores the entries of one manifest group (one xbtest run)
// and checks their verdicts; it returns the directory of the schedule
// files and the -json output.
func checkGroup(t testing.TB, flags string, entries []*manifestEntry) (string, string) {
	var pkgs, tests []string
	for _, e := range entries {
		if !slices.Contains(pkgs, e.Package) {
			pkgs = append(pkgs, e.Package)
		}
		if !slices.Contains(tests, e.Test) {
			tests = append(tests, regexp.QuoteMeta(e.Test))
		}
	}
	outDir := t.TempDir()
	args := append(strings.Fields(flags), "-json", "-o", outDir, "-run", "^("+strings.Join(tests, "|")+")$")
	if flags == group(settings.Default()) {
		// Two worker processes per test (-parallel): the counts and
		// verdicts of one process, which the manifest pins.
		args = append(args, "-parallel", "2")
	} else {
		// The other groups (the long suite) run as one process, one
		// package at a time: the default group checks -parallel, and
		// the long suite shares CI's two cores with the scheduler's and
		// instrument's long tests (with the GOMAXPROCS defaults CI took
		// 21 minutes, over its 20).
		args = append(args, "-parallel", "1", "-p", "1")
	}
	if corpusCache != "" {
		args = append(args, "-cache", corpusCache)
	}
	args = append(args, pkgs...)
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	got := parseJSONLines(t, out.Bytes())
	want := exitOK
	for _, e := range entries {
		if len(e.Kinds) > 0 {
			want = max(want, exitFindings)
		}
		if e.Error != "" {
			want = exitError
			if !strings.Contains(errOut.String(), e.Test+": "+e.Error) {
				t.Errorf("%s %s: no error %q\nstderr: %s", e.Package, e.Test, e.Error, errOut.String())
			}
		}
		key := strings.TrimPrefix(e.Package, "./")
		s, ok := got[key+"/"+e.Test]
		if !ok {
			t.Errorf("%s %s: no summary\nstderr: %s", e.Package, e.Test, errOut.String())
			continue
		}
		kinds := slices.Compact(slices.Sorted(slices.Values(s.kinds)))
		wantKinds := slices.Compact(slices.Sorted(slices.Values(e.Kinds)))
		if !slices.Equal(kinds, wantKinds) {
			t.Errorf("%s %s: findings %v, want %v", e.Package, e.Test, kinds, wantKinds)
		}
		if e.Findings != nil && len(s.kinds) != *e.Findings {
			t.Errorf("%s %s: %d findings %v, want %d", e.Package, e.Test, len(s.kinds), s.kinds, *e.Findings)
		}
		if e.Positions != nil && !slices.Equal(slices.Sorted(slices.Values(s.positions)), slices.Sorted(slices.Values(e.Positions))) {
			t.Errorf("%s %s: findings at %q, want %q", e.Package, e.Test, s.positions, e.Positions)
		}
		if e.Goroutines != nil && !slices.Equal(slices.Sorted(slices.Values(s.goroutines)), slices.Sorted(slices.Values(e.Goroutines))) {
			t.Errorf("%s %s: goroutines %q, want %q", e.Package, e.Test, s.goroutines, e.Goroutines)
		}
		if e.Schedules != 0 && s.Schedules != e.Schedules {
			t.Errorf("%s %s: %d schedules, want %d", e.Package, e.Test, s.Schedules, e.Schedules)
		}
		if !s.Complete && e.Error == "" {
			t.Errorf("%s %s: exploration incomplete", e.Package, e.Test)
		}
		if e.Todo != "" {
			t.Logf("%s %s: expected verdict will change: %s", e.Package, e.Test, e.Todo)
		}
	}
	if status != want {
		t.Errorf("exit status %d, want %d\nstderr: %s", status, want, errOut.String())
	}
	return outDir, out.String()
}

type summary struct {
	*result.SummaryEvent
	kinds      []string
	positions  []string
	goroutines []string
}

// parseJSONLines reads xbtest -json output, keyed by module-relative
// package path and test.
func parseJSONLines(t testing.TB, b []byte) map[string]*summary {
	t.Helper()
	ev := testkit.DecodeEvents(t, string(b))
	rel := func(pkg, test string) string {
		return strings.TrimPrefix(pkg, "github.com/xbtest/xbtest/") + "/" + test
	}
	out := map[string]*summary{}
	for _, s := range ev.Summaries {
		out[rel(s.Package, s.Test)] = &summary{SummaryEvent: s}
	}
	for _, f := range ev.Findings {
		if f.Unreproduced != "" {
			t.Errorf("%s %s: %s %q not reproduced by its schedule: %s", f.Package, f.Test, f.Kind, f.Message, f.Unreproduced)
		}
		s := out[rel(f.Package, f.Test)]
		if s == nil {
			t.Errorf("finding without summary: %+v", f)
			continue
		}
		s.kinds = append(s.kinds, string(f.Kind))
		s.positions = append(s.positions, f.Pos)
		for _, g := range f.Goroutines {
			s.goroutines = append(s.goroutines, fmt.Sprintf("%s (%s on %s) at %s", g.ID, g.State, g.On, g.Pos))
		}
	}
	return out
}
