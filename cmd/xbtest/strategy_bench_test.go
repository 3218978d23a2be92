package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStrategies measures, per strategy, how soon exploration finds
// the first bug of a few hard tests of the corpus and of a 50-goroutine
// test (testdata/many): it reports the schedule index of the first finding
// (schedules/first, which does not depend on the machine's load) and the
// time to it, with -stop. A run that finds nothing within -max-schedules
// reports that bound. Each iteration builds the test binary (go's cache
// warm after the first), which the time includes; compare schedules/first.
//
//	go test ./cmd/xbtest -run '^$' -bench Strategies -benchtime 1x
func BenchmarkStrategies(b *testing.B) {
	root, _ := filepath.Abs("../..")
	cases := []struct{ name, pkg, test, flags string }{
		{"BufferNotify", "./corpus/thesis/buffernotify", "TestBufferNotify", ""},
		{"Deadlock3", "./corpus/thesis/deadlock3", "TestDeadlock3", ""},
		{"PhasesMarkTypeI", "./corpus/gc/phases", "TestMarkTypeI", ""},
		{"RefprocDeletionNoHandshake", "./corpus/gc/refproc", "TestDeletionNoHandshake", ""},
		{"SapphireSTMNoFenceTwoWordTSO", "./corpus/gc/sapphirecopy", "TestSTMNoFenceTwoWord", "-memory=tso"},
		{"CloverOriginalA0WRTSO", "./corpus/gc/clover", "TestOriginalA0WR", "-memory=tso"},
		{"BirrellSenderIsOwnerFIFO", "./corpus/gc/birrell", "TestSenderIsOwnerFIFO", ""},
		{"Fifty", "./cmd/xbtest/testdata/many", "TestFiftyIncrements", ""},
	}
	for _, c := range cases {
		for _, s := range []string{"dfs", "pb", "pct", "random"} {
			b.Run(c.name+"/"+s, func(b *testing.B) {
				b.Chdir(root)
				var first, schedules int
				var elapsed float64
				for b.Loop() {
					args := append(strings.Fields(c.flags), "-strategy="+s, "-stop", "-max-schedules=20000", "-json",
						"-o", b.TempDir(), "-run", "^"+c.test+"$", c.pkg)
					var out, errOut bytes.Buffer
					if st := run(args, &out, &errOut); st == exitError {
						b.Fatalf("exit status %d\n%s", st, errOut.String())
					}
					first, schedules, elapsed = firstFinding(b, out.Bytes())
				}
				b.ReportMetric(float64(first), "schedules/first")
				b.ReportMetric(float64(schedules), "schedules")
				b.ReportMetric(elapsed, "s/first")
			})
		}
	}
}

// firstFinding reads -json output: the schedule of the first finding (0:
// none), the schedules explored and the test's elapsed seconds.
func firstFinding(b *testing.B, out []byte) (first, schedules int, elapsed float64) {
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var e struct {
			Event     string  `json:"event"`
			Schedule  int     `json:"schedule"`
			Schedules int     `json:"schedules"`
			ElapsedS  float64 `json:"elapsed_s"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			b.Fatalf("%v: %s", err, line)
		}
		switch e.Event {
		case "finding":
			if first == 0 || e.Schedule < first {
				first = e.Schedule
			}
		case "summary":
			schedules, elapsed = e.Schedules, e.ElapsedS
		}
	}
	if schedules == 0 {
		b.Fatalf("no summary in %s", out)
	}
	return first, schedules, elapsed
}
