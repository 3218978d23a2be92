package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// manifestEntry is one line of corpus/manifest.json. The settings it
// does not name are the defaults.
type manifestEntry struct {
	Package     string               `json:"package"`
	Test        string               `json:"test"`
	Algo        settings.Algorithm   `json:"algo"`
	SyncDeps    bool                 `json:"sync_deps"`
	Memory      settings.Memory      `json:"memory"`
	CAS         settings.CAS         `json:"cas"`
	Granularity settings.Granularity `json:"granularity"`
	Timers      settings.Timers      `json:"timers"`
	Race        eraser.Mode          `json:"race"`
	Checkpoint  settings.Checkpoint  `json:"checkpoint"`
	Error       string               `json:"error"` // exploration stops with this error (exit status 2)
	Kinds       []string             `json:"kinds"`
	Findings    *int                 `json:"findings"` // the exact number of findings, if given
	Schedules   int                  `json:"schedules"`
	// Where the findings are, if given: each finding's position, and each
	// goroutine of each finding as "ID (state on) at pos" (sorted).
	Positions  []string `json:"positions"`
	Goroutines []string `json:"goroutines"`
	Todo       string   `json:"todo"`
	// Slow marks a cell over CI's budget, with its measured cost: go
	// test's TestCorpus leaves it to BenchmarkCorpusSlowCells.
	Slow string `json:"slow"`
}

// UnmarshalJSON reads an entry, the defaults standing for what it omits.
func (e *manifestEntry) UnmarshalJSON(b []byte) error {
	type plain manifestEntry
	d := settings.Default()
	p := plain{Algo: d.Algorithm, SyncDeps: d.SyncDeps, Memory: d.Memory, Timers: d.Timers, Race: d.Race, Checkpoint: d.Checkpoint}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = manifestEntry(p)
	return nil
}

func (e *manifestEntry) group() string {
	s := settings.Default()
	s.Algorithm, s.SyncDeps, s.Memory, s.Timers, s.Race, s.Checkpoint = e.Algo, e.SyncDeps, e.Memory, e.Timers, e.Race, e.Checkpoint
	s.CAS, s.Granularity = e.CAS, e.Granularity
	return group(s)
}

// group is the command line of the settings that manifest entries vary:
// the entries of one group are explored by one run.
func group(s settings.Settings) string {
	g := fmt.Sprintf("-algo=%s -sync-deps=%v -memory=%s -race=%s -checkpoint=%s -timers=%s", s.Algorithm, s.SyncDeps, s.Memory, s.Race, s.Checkpoint, s.Timers)
	// Named only when they differ from the default, so that the groups
	// of the entries written before they existed keep their names.
	if s.CAS != settings.FullCAS {
		g += " -cas=" + s.CAS.String()
	}
	if s.Granularity != settings.Sync && !s.Memory.Buffered() {
		g += " -granularity=" + s.Granularity.String()
	}
	return g
}

// The total of a run, printed last: what a newcomer looks at to see it
// worked. On the corpus it also compares the verdicts with the manifest.

// tally adds up a run's tests.
type tally struct {
	tests, complete, schedules int
	findings                   map[string]int
	kinds                      map[string][]string // by package and test
	corpus                     bool                // packages of xbtest's corpus were explored
	corpusDir                  string
}

func (ta *tally) add(p *xbtest.Package, t *xbtest.Test) {
	if ta.findings == nil {
		ta.findings, ta.kinds = map[string]int{}, map[string][]string{}
	}
	ta.tests++
	key := p.ImportPath + "/" + t.Name
	var found []*result.Finding
	if r := t.Result; r != nil {
		ta.schedules += r.Schedules
		if r.Complete || r.Skipped {
			ta.complete++
		}
		found = r.Findings
	} else {
		found = t.Found
	}
	ks := []string{}
	for _, f := range found {
		ta.findings[string(f.Kind)]++
		ks = append(ks, string(f.Kind))
	}
	ta.kinds[key] = ks
	const corpus = "github.com/xbtest/xbtest/corpus/"
	if strings.HasPrefix(p.ImportPath, corpus) && ta.corpusDir == "" {
		// The package's directory is corpus/<rest>: the manifest is at
		// the corpus's top.
		rest := strings.TrimPrefix(p.ImportPath, corpus)
		ta.corpus, ta.corpusDir = true, filepath.Clean(strings.TrimSuffix(filepath.ToSlash(p.Dir), rest))
	}
}

// line is the total: tests, schedules, findings by kind.
func (ta *tally) line() string {
	var ks []string
	total := 0
	for _, k := range result.Kinds {
		if n := ta.findings[string(k)]; n > 0 {
			ks = append(ks, fmt.Sprintf("%d %s", n, k))
			total += n
		}
	}
	f := fmt.Sprintf("%d findings", total)
	if len(ks) > 0 {
		f += " (" + strings.Join(ks, ", ") + ")"
	}
	return fmt.Sprintf("%d tests (%d explored completely), %d schedules, %s", ta.tests, ta.complete, ta.schedules, f)
}

// corpusVerdicts compares the run's verdicts with the manifest's entries
// for the run's settings: how many known bugs were found and known-good
// programs were clean, and what differs.
func (ta *tally) corpusVerdicts(o *options) (string, []string) {
	b, err := os.ReadFile(filepath.Join(ta.corpusDir, "manifest.json"))
	if err != nil {
		return "", nil
	}
	var m struct{ Entries []manifestEntry }
	if json.Unmarshal(b, &m) != nil {
		return "", nil
	}
	run := group(o.s)
	bugs, found, good, clean := 0, 0, 0, 0
	var wrong []string
	for _, e := range m.Entries {
		if e.group() != run || e.Error != "" {
			continue
		}
		got, ok := ta.kinds["github.com/xbtest/xbtest/"+strings.TrimPrefix(e.Package, "./")+"/"+e.Test]
		if !ok {
			continue // not run this time (-run, other packages)
		}
		want := slices.Compact(slices.Sorted(slices.Values(e.Kinds)))
		have := slices.Compact(slices.Sorted(slices.Values(got)))
		match := slices.Equal(want, have)
		if len(want) > 0 {
			bugs++
			if match {
				found++
			}
		} else {
			good++
			if match {
				clean++
			}
		}
		if !match {
			wrong = append(wrong, fmt.Sprintf("%s %s: found %v, the manifest says %v", e.Package, e.Test, have, want))
		}
	}
	if bugs+good == 0 {
		return "", nil
	}
	return fmt.Sprintf("corpus: %d of %d known bugs found, %d of %d known-good programs clean", found, bugs, clean, good), wrong
}
