package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunReport: -html writes one page for the run: every test with its
// schedules and coverage, the finding with its timeline, the comparison
// with the corpus's manifest; the text output is what it is without it.
func TestRunReport(t *testing.T) {
	page := filepath.Join(t.TempDir(), "run.html")
	status, stdout, stderr := runIn(t, repoRoot(t), "-html", page, "-o", t.TempDir(), "./corpus/thesis/deadlock")
	if status != exitFindings {
		t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
	}
	if !strings.Contains(stdout, "XBTEST: LOCK-CYCLE in TestDeadlock") {
		t.Errorf("the text report is missing:\n%s", stdout)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<tr class="pkg" id="pkg-github.com/xbtest/xbtest/corpus/thesis/deadlock"><td>github.com/xbtest/xbtest/corpus/thesis/deadlock</td><td class="v-FAIL">FAIL</td>`,
		`<tr class="test"><td>TestDeadlock</td><td class="v-FAIL">FAIL</td><td class="num">\d+</td><td class="num">\d+</td><td>complete</td><td class="num">\d+</td>`,
		`<tr class="test"><td>TestDeadlockFixed</td><td class="v-PASS">PASS</td>`,
		`<a href="#f1">lock-cycle</a>`,
		`<h2>lock-cycle \(1\)</h2>`,
		`<details class="finding" id="f1" open><summary>github.com/xbtest/xbtest/corpus/thesis/deadlock TestDeadlock: lock-order cycle`,
		`<section class="timeline" data-kind="lock-cycle">`,
		`<tr class="arrow holder" data-label="T0\.\d waits for T0\.\d`,
		`corpus: 1 of 1 known bugs found, 1 of 1 known-good programs clean`,
		`memory model sc`, `algorithm exitblock-rwdd`,
	} {
		if !regexp.MustCompile(want).MatchString(html) {
			t.Errorf("the report has no %s", want)
		}
	}
}
