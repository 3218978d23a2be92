package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// Exit statuses, as go test's.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// reporter prints results, in text modelled on go test and the race
// detector, or as JSON lines.
type reporter struct {
	out, errOut io.Writer
	o           *options
	cwd         string
	replaying   bool // xbtest -replay: the finding's file is the replayed one
}

// The JSON lines of -json are the event types of package result, which
// other tools decode with result.DecodeEvent.

func (rp *reporter) jsonLine(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(rp.out, "%s\n", b)
}

// noTests reports a package without tests.
func (rp *reporter) noTests(p *xbtest.Package) {
	if rp.o.json {
		rp.jsonLine(result.PackageEvent{Event: result.EventPackage, Package: p.ImportPath, Result: "no test files"})
		return
	}
	fmt.Fprintf(rp.out, "?   \t%s\t[no test files]\n", p.ImportPath)
}

// buildFailed reports a package that does not compile.
func (rp *reporter) buildFailed(pkg, msg string) {
	if rp.o.json {
		rp.jsonLine(result.PackageEvent{Event: result.EventPackage, Package: pkg, Result: "build failed", Output: msg})
		return
	}
	fmt.Fprintf(rp.errOut, "%s\nFAIL\t%s [build failed]\n", msg, pkg)
}

// pkgDone reports the end of a package whose tests reported with status.
func (rp *reporter) pkgDone(p *xbtest.Package, status int) {
	verdict := "ok"
	switch {
	case p.Interrupted:
		verdict = "interrupted"
	case status != exitOK:
		verdict = "FAIL"
	case len(p.Tests) == 0:
		verdict = "no tests to run"
	}
	if rp.o.json {
		rp.jsonLine(result.PackageEvent{Event: result.EventPackage, Package: p.ImportPath, Result: verdict, ElapsedS: p.Elapsed.Seconds(), CachedBuild: p.CachedBuild, ExamplesNotRun: p.Examples})
		return
	}
	line := fmt.Sprintf("%s\t%s\t%.3fs", map[bool]string{true: "ok  ", false: "FAIL"}[verdict == "ok" || verdict == "no tests to run"], p.ImportPath, p.Elapsed.Seconds())
	switch {
	case verdict == "no tests to run":
		line += " [no tests to run]"
	case p.Interrupted:
		line += " [interrupted]"
	}
	if n := incomplete(p); n > 0 && !p.Interrupted {
		line += fmt.Sprintf(" [%d of %d tests explored incompletely]", n, len(p.Tests))
	}
	if p.Examples > 0 {
		// go test would have run them: no silent pass.
		line += fmt.Sprintf(" [%d examples not run: xbtest explores tests]", p.Examples)
	}
	if p.CachedBuild {
		line += " [build cached]"
	}
	fmt.Fprintln(rp.out, line)
}

// incomplete counts the tests of a package whose exploration was bounded
// or failed.
func incomplete(p *xbtest.Package) int {
	n := 0
	for _, t := range p.Tests {
		if !t.Complete() {
			n++
		}
	}
	return n
}

// boundText says in words why exploration stopped early.
func (rp *reporter) boundText(bound string) string {
	switch bound {
	case result.BoundSchedules:
		return fmt.Sprintf("incomplete: stopped at -max-schedules %d", rp.o.s.MaxSchedules)
	case result.BoundTime:
		return fmt.Sprintf("incomplete: stopped at -timeout %v", rp.o.s.Timeout)
	case result.BoundSteps:
		return fmt.Sprintf("incomplete: a goroutine was stopped at -max-steps %d", rp.o.s.MaxSteps)
	case result.BoundStop:
		return "incomplete: stopped at the first finding (-stop)"
	case result.BoundInterrupted:
		return "incomplete: interrupted"
	case result.BoundSamples:
		return "not complete"
	case result.BoundOutside:
		return "incomplete: goroutines started before the test were held while it ran (see its warnings)"
	case "", result.BoundError:
		return "incomplete: error"
	}
	return "incomplete: " + bound
}

// testDone reports one test and returns its exit status.
func (rp *reporter) testDone(p *xbtest.Package, t *xbtest.Test) int {
	if t.Result == nil {
		return rp.testFailed(p, t)
	}
	r := t.Result
	status := exitOK
	counts := map[string]int{}
	for _, k := range result.Kinds {
		counts[string(k)] = 0
	}
	for i, f := range r.Findings {
		counts[string(f.Kind)]++
		status = exitFindings
		var path, noFile string
		if i < len(t.Files) {
			if err := t.Files[i].Err; err != nil {
				status = exitError
				noFile = fmt.Sprintf("not written: %v", err)
			}
			if m := t.Files[i].Missing; m != "" {
				noFile = m
			}
			path = t.Files[i].Path
		}
		rp.finding(p.ImportPath, r, f, path, noFile)
	}
	if r.Internal != "" {
		status = exitError
		fmt.Fprintf(rp.errOut, "xbtest: %s: %s\n", r.Test, r.Internal)
	}
	if rp.o.json {
		rp.jsonLine(result.SummaryEvent{Event: result.EventSummary, Package: p.ImportPath, Test: r.Test, Algorithm: r.Semantics.Algorithm.String(), Memory: r.Semantics.Memory.String(),
			Schedules: r.Schedules, Aborted: r.Aborted, Findings: counts, Complete: r.Complete, Bound: r.BoundOf(), Depth: r.Depth, Left: r.Left, Skipped: r.Skipped,
			Strategy: strategyName(r.Strategy), Seed: r.Seed, PreemptionsComplete: r.PreemptionsComplete,
			Error: firstLine(r.Internal), Warnings: r.Warnings, ElapsedS: r.Elapsed.Seconds(), Checkpoint: r.Backer, Notes: r.Notes,
			Shard: shardText(r.Shard), ShardLearnt: r.ShardLearnt})
		return status
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(rp.errOut, "xbtest: %s: warning: %s\n", r.Test, w)
	}
	verdict := "PASS"
	switch {
	case r.Skipped:
		verdict = "SKIP"
	case status != exitOK:
		verdict = "FAIL"
	}
	// A passing test gets a line of its own under -v, or when its
	// exploration was not complete: a bounded pass must say so.
	if verdict != "PASS" || rp.o.verbose || !r.Complete {
		detail := fmt.Sprintf("%d schedules, %d aborted", r.Schedules, r.Aborted)
		if r.Strategy.Samples() {
			detail = fmt.Sprintf("-strategy %s -seed %d, %d samples, %d aborted", r.Strategy, r.Seed, r.Schedules, r.Aborted)
		} else if r.Strategy != settings.DFS {
			detail = fmt.Sprintf("-strategy %s, %s", r.Strategy, detail)
		}
		if r.Shard != nil {
			detail = "shard " + r.Shard.String() + ": " + detail
		}
		if n := len(r.Findings); n > 0 {
			detail += fmt.Sprintf(", %d finding(s)", n)
		}
		if !r.Complete && !r.Skipped {
			detail += ", " + rp.boundText(r.BoundOf())
			if k := r.PreemptionsComplete; k != nil {
				detail += fmt.Sprintf(" (complete up to %d preemptions)", *k)
			}
			switch {
			case r.Schedules == 0 && r.Aborted == 0 && len(r.Findings) == 0:
				// Nothing was checked to its end: not even one
				// interleaving (a first execution of millions of steps).
				detail += fmt.Sprintf(" before any execution ended: no schedule was checked (the first had run %d blocks)", r.Depth)
			case r.Left > 0:
				detail += fmt.Sprintf(" with at least %d schedules left (paths of up to %d blocks)", r.Left, r.Depth)
			}
		}
		fmt.Fprintf(rp.out, "--- %s: %s (%s, %s, %.2fs)\n", verdict, r.Test, r.Semantics.Algorithm, detail, r.Elapsed.Seconds())
	}
	if rp.o.verbose {
		for _, n := range r.Notes {
			fmt.Fprintf(rp.out, "    %s\n", n)
		}
	}
	return status
}

// testFailed reports a test that ended without a report: its binary
// crashed or was killed. The findings it had seen are reported, without
// schedule files (they are written when a finding has been replayed, at the
// end of the test's exploration).
func (rp *reporter) testFailed(p *xbtest.Package, t *xbtest.Test) int {
	status := exitFindings
	if t.Bound == result.BoundInterrupted {
		status = exitError
	}
	counts := map[string]int{}
	for _, k := range result.Kinds {
		counts[string(k)] = 0
	}
	r := &result.Result{Test: t.Name, Semantics: rp.o.s.Semantics}
	for _, f := range t.Found {
		counts[string(f.Kind)]++
		rp.finding(p.ImportPath, r, f, "", "none (the test binary ended before this finding was replayed and recorded)")
	}
	if rp.o.json {
		bound := t.Bound
		if bound == "" {
			bound = result.BoundError
		}
		rp.jsonLine(result.SummaryEvent{Event: result.EventSummary, Package: p.ImportPath, Test: t.Name, Algorithm: rp.o.s.Algorithm.String(), Memory: rp.o.s.Memory.String(),
			Findings: counts, Bound: bound, Error: t.Problem})
		return status
	}
	fmt.Fprintf(rp.out, "--- FAIL: %s (%s)\n", t.Name, t.Problem)
	if out := strings.TrimSpace(t.Output); out != "" {
		const max = 4000
		if len(out) > max {
			out = "...\n" + out[len(out)-max:]
		}
		fmt.Fprintf(rp.out, "%s\n", indent(out))
	}
	return status
}

// total prints the run's total, and on the corpus the comparison with its
// manifest.
func (rp *reporter) total(ta *tally) {
	if ta.tests == 0 {
		return
	}
	verdicts, wrong := "", []string(nil)
	if ta.corpus && !rp.o.shard.Active() { // a shard's findings are not the run's
		verdicts, wrong = ta.corpusVerdicts(rp.o)
	}
	if rp.o.json {
		rp.jsonLine(result.TotalEvent{Event: result.EventTotal, Tests: ta.tests, Complete: ta.complete, Schedules: ta.schedules,
			Findings: ta.findings, Corpus: verdicts, CorpusMismatches: wrong, Shard: shardText(rp.o.shardOf())})
		return
	}
	for _, w := range wrong {
		fmt.Fprintf(rp.out, "xbtest: %s\n", w)
	}
	line := "xbtest: " + ta.line()
	if sh := rp.o.shardOf(); sh != nil {
		line += " in shard " + sh.String()
	}
	if verdicts != "" {
		line += "; " + verdicts
	}
	fmt.Fprintln(rp.out, line)
}

// shardText is a result's shard as -json says it ("" for a whole tree).
func shardText(s *result.Shard) string {
	if s == nil {
		return ""
	}
	return s.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// finding prints one finding; path is its schedule file, or "" and
// noFile says why there is none.
func (rp *reporter) finding(pkg string, r *result.Result, f *result.Finding, path, noFile string) {
	rel := path
	if r, err := filepath.Rel(rp.cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	if rp.o.json {
		jf := result.FindingEvent{Event: result.EventFinding, Package: pkg, Test: r.Test, Kind: f.Kind,
			Schedule: f.Schedule, Message: f.Message, Pos: f.Pos, Goroutines: f.Goroutines, Replay: rel, NoReplay: noFile, Count: f.Count, Unreproduced: f.Unreproduced, Key: f.Key}
		if rel != "" && !rp.replaying {
			jf.ReplayCmd = "xbtest -replay " + rel
		}
		if path != "" {
			jf.Size = &result.Size{Blocks: len(f.Blocks), Preemptions: result.Preemptions(f.Blocks)}
			if sh := f.Shortened; sh != nil && (sh.Blocks != len(f.Blocks) || sh.Preemptions != jf.Preemptions) {
				jf.From = &result.Size{Blocks: sh.Blocks, Preemptions: sh.Preemptions}
			}
			jf.ShorteningStopped = f.Shortened != nil && f.Shortened.Stopped
		}
		rp.jsonLine(jf)
		return
	}
	w := rp.out
	fmt.Fprintln(w, "==================")
	fmt.Fprintf(w, "XBTEST: %s in %s\n", strings.ToUpper(string(f.Kind)), r.Test)
	fmt.Fprintln(w, f.Message)
	if f.Pos != "" && f.Kind != result.Race {
		fmt.Fprintf(w, "  at %s\n", f.Pos)
	}
	for i, g := range f.Goroutines {
		if f.Kind == result.Race {
			// As the race detector: the access, then the one it races with.
			what := g.State
			if i > 0 {
				what = "previous " + what
			}
			fmt.Fprintf(w, "\n%s at %s by goroutine %s\n  %s\n", upperFirst(what), g.Pos, g.ID, g.Note)
			continue
		}
		fmt.Fprintf(w, "\nGoroutine %s (%s", g.ID, g.State)
		if g.On != "" {
			fmt.Fprintf(w, " on %s", g.On)
		}
		fmt.Fprint(w, ")")
		if g.Pos != "" {
			fmt.Fprintf(w, " at %s", g.Pos)
		}
		fmt.Fprintln(w)
		if g.Note != "" {
			fmt.Fprintf(w, "  %s\n", g.Note)
		}
		if g.Stack != "" && f.Kind == result.Panic {
			fmt.Fprintf(w, "%s\n", indent(g.Stack))
		}
	}
	if len(f.Log) > 0 {
		fmt.Fprintf(w, "\nLog:\n")
		for _, l := range f.Log {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	switch {
	case rp.replaying:
		fmt.Fprintln(w)
	case r.Schedules+r.Aborted > 0:
		fmt.Fprintf(w, "\nFirst seen on schedule %d; seen in %d of %d executions (%d schedules, %d aborted).\n", f.Schedule, f.Count, r.Schedules+r.Aborted, r.Schedules, r.Aborted)
	default:
		fmt.Fprintf(w, "\nFirst seen on schedule %d.\n", f.Schedule)
	}
	if noFile != "" {
		fmt.Fprintf(w, "Schedule: %s\n", noFile)
	}
	if path != "" {
		fmt.Fprintf(w, "Schedule: %s (%s)\n", rel, scheduleSize(f))
		if !rp.replaying {
			fmt.Fprintf(w, "Replay:   xbtest -replay %s\n", rel)
		}
	}
	if f.Unreproduced != "" && !rp.replaying {
		fmt.Fprintf(w, "NOT REPRODUCED: %s; the finding was seen, but its schedule may not replay it (a bug of xbtest, or the program depends on something xbtest does not control)\n", f.Unreproduced)
	}
	fmt.Fprintln(w, "==================")
}

// scheduleSize describes a finding's schedule: its blocks and preemptions,
// and what minimisation made of it.
func scheduleSize(f *result.Finding) string {
	p := result.Preemptions(f.Blocks)
	s := fmt.Sprintf("%d blocks, %d preemptions", len(f.Blocks), p)
	switch sh := f.Shortened; {
	case sh == nil:
	case sh.Blocks != len(f.Blocks) || sh.Preemptions != p:
		s += fmt.Sprintf("; shortened from %d blocks, %d preemptions", sh.Blocks, sh.Preemptions)
		if sh.Stopped {
			s += fmt.Sprintf(" in %d tries, when shortening reached its time bound", sh.Tries)
		}
	case sh.Stopped:
		s += fmt.Sprintf("; no shorter one in %d tries, when shortening reached its time bound", sh.Tries)
	case sh.Tries > 0:
		s += fmt.Sprintf("; no shorter one in %d tries", sh.Tries)
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func cwd() string {
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}

// strategyName is a summary event's strategy: omitted for dfs, the
// default order.
func strategyName(s settings.Strategy) string {
	if s == settings.DFS {
		return ""
	}
	return s.String()
}
