package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
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
		groups[e.group()] = append(groups[e.group()], e)
	}
	bin := buildCommand(t)
	t.Chdir(root)
	for flags, entries := range groups {
		if longSuite == (flags == (&manifestEntry{}).group()) {
			// The default configuration is the acceptance suite of go
			// test ./...; the others run under -tags long, which CI
			// runs after it.
			continue
		}
		t.Run(flags, func(t *testing.T) {
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
			checkReplays(t, bin, outDir, strings.Count(out.String(), `"replay_command":"xbtest -replay `))
		})
	}
}

type summary struct {
	Package    string
	Test       string
	Schedules  int
	Complete   bool
	kinds      []string
	positions  []string
	goroutines []string
}

// parseJSONLines reads xbtest -json output, keyed by module-relative
// package path and test.
func parseJSONLines(t *testing.T, b []byte) map[string]*summary {
	t.Helper()
	out := map[string]*summary{}
	var findings []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		switch ev["event"] {
		case "finding":
			findings = append(findings, ev)
			if u, _ := ev["unreproduced"].(string); u != "" {
				t.Errorf("%v %v: %v %q not reproduced by its schedule: %s", ev["package"], ev["test"], ev["kind"], ev["message"], u)
			}
		case "summary":
			var s summary
			json.Unmarshal(sc.Bytes(), &s)
			out[strings.TrimPrefix(s.Package, "github.com/xbtest/xbtest/")+"/"+s.Test] = &s
		case "package", "total":
		default:
			t.Fatalf("unknown event in %q", sc.Text())
		}
	}
	for _, f := range findings {
		key := strings.TrimPrefix(f["package"].(string), "github.com/xbtest/xbtest/") + "/" + f["test"].(string)
		if s := out[key]; s != nil {
			s.kinds = append(s.kinds, f["kind"].(string))
			pos, _ := f["pos"].(string)
			s.positions = append(s.positions, pos)
			gs, _ := f["goroutines"].([]any)
			for _, g := range gs {
				g := g.(map[string]any)
				s.goroutines = append(s.goroutines, fmt.Sprintf("%v (%v on %v) at %v", g["id"], g["state"], g["on"], g["pos"]))
			}
		} else {
			t.Errorf("finding without summary: %v", f)
		}
	}
	return out
}
