package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/scheduler"
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
	replaying   bool              // xbtest -replay: the finding's file is the replayed one
	stems       map[string]string // import path: the stem of its schedule files (replay.Stems)
}

// jsonGoroutine, jsonFinding and jsonSummary are the JSON lines of
// DESIGN.md, "Output": other tools parse them.
type jsonGoroutine struct {
	ID    string `json:"id"`
	State string `json:"state"`
	On    string `json:"on"`
	Pos   string `json:"pos"`
}

type jsonFinding struct {
	Event      string          `json:"event"`
	Package    string          `json:"package"`
	Test       string          `json:"test"`
	Kind       string          `json:"kind"`
	Schedule   int             `json:"schedule"`
	Message    string          `json:"message"`
	Pos        string          `json:"pos,omitempty"`
	Goroutines []jsonGoroutine `json:"goroutines"`
	Replay     string          `json:"replay"`
	ReplayCmd  string          `json:"replay_command,omitempty"`
	NoReplay   string          `json:"no_replay,omitempty"` // why there is no schedule file
	// Unreproduced says why replaying the schedule did not lead to the
	// finding again (see scheduler.Finding).
	Unreproduced string `json:"unreproduced,omitempty"`
	Count        int    `json:"count,omitempty"` // executions that showed it
	*jsonSize           // the schedule file's, when one was written
}

// jsonSize is the size of a finding's schedule and, when minimisation
// shortened it, that of the schedule exploration found.
type jsonSize struct {
	Blocks      int       `json:"blocks"`
	Preemptions int       `json:"preemptions"`
	From        *jsonSize `json:"shortened_from,omitempty"`
}

type jsonSummary struct {
	Event     string         `json:"event"`
	Package   string         `json:"package"`
	Test      string         `json:"test"`
	Algorithm string         `json:"algorithm"`
	Memory    string         `json:"memory"`
	Schedules int            `json:"schedules"`
	Aborted   int            `json:"aborted"`
	Findings  map[string]int `json:"findings"`
	Complete  bool           `json:"complete"`
	// Bound is why exploration is incomplete: "schedules" (-max-schedules),
	// "time" (-timeout), "steps" (a goroutine stopped at -max-steps),
	// "stop" (-stop), "interrupted", "error" (Error says what).
	Bound string `json:"bound,omitempty"`
	// Depth is the deepest path explored (blocks); Left, when incomplete,
	// the branches left to explore: at least that many schedules more.
	Depth    int      `json:"depth,omitempty"`
	Left     int      `json:"left,omitempty"`
	Skipped  bool     `json:"skipped,omitempty"`
	Error    string   `json:"error,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	ElapsedS float64  `json:"elapsed_s"`
	// Checkpoint is how exploration backed up, Notes why (and, with race
	// detection, the locations shared without a common lock).
	Checkpoint string   `json:"checkpoint,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// jsonPackage is the line that ends a package, as go test's pass or fail
// line: Result is "ok", "FAIL", "no test files", "no tests to run",
// "build failed" (Output: the compiler's) or "interrupted".
type jsonPackage struct {
	Event    string  `json:"event"`
	Package  string  `json:"package"`
	Result   string  `json:"result"`
	Output   string  `json:"output,omitempty"`
	ElapsedS float64 `json:"elapsed_s"`
}

func (rp *reporter) jsonLine(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(rp.out, "%s\n", b)
}

// noTests reports a package without tests.
func (rp *reporter) noTests(p instrument.Package) {
	if rp.o.json {
		rp.jsonLine(jsonPackage{Event: "package", Package: p.ImportPath, Result: "no test files"})
		return
	}
	fmt.Fprintf(rp.out, "?   \t%s\t[no test files]\n", p.ImportPath)
}

// buildFailed reports a package that does not compile.
func (rp *reporter) buildFailed(p instrument.Package, msg string) {
	if rp.o.json {
		rp.jsonLine(jsonPackage{Event: "package", Package: p.ImportPath, Result: "build failed", Output: msg})
		return
	}
	fmt.Fprintf(rp.errOut, "%s\nFAIL\t%s [build failed]\n", msg, p.ImportPath)
}

// pkgDone reports the end of a package whose tests reported with status.
func (rp *reporter) pkgDone(p instrument.Package, run *pkgRun, status int) {
	result := "ok"
	switch {
	case run.interrupted:
		result = "interrupted"
	case status != exitOK:
		result = "FAIL"
	case len(run.results) == 0:
		result = "no tests to run"
	}
	if rp.o.json {
		rp.jsonLine(jsonPackage{Event: "package", Package: p.ImportPath, Result: result, ElapsedS: run.elapsed.Seconds()})
		return
	}
	line := fmt.Sprintf("%s\t%s\t%.3fs", map[bool]string{true: "ok  ", false: "FAIL"}[result == "ok" || result == "no tests to run"], p.ImportPath, run.elapsed.Seconds())
	switch {
	case result == "no tests to run":
		line += " [no tests to run]"
	case run.interrupted:
		line += " [interrupted]"
	}
	if n := incomplete(run); n > 0 && !run.interrupted {
		line += fmt.Sprintf(" [%d of %d tests explored incompletely]", n, len(run.results))
	}
	fmt.Fprintln(rp.out, line)
}

// incomplete counts the tests of a package whose exploration was bounded
// or failed.
func incomplete(run *pkgRun) int {
	n := 0
	for _, r := range run.results {
		if r.report == nil || !r.report.Complete && !r.report.Skipped {
			n++
		}
	}
	return n
}

// boundText says in words why exploration stopped early.
func (rp *reporter) boundText(bound string) string {
	switch bound {
	case "schedules":
		return fmt.Sprintf("incomplete: stopped at -max-schedules %d", rp.o.maxSchedules)
	case "time":
		return fmt.Sprintf("incomplete: stopped at -timeout %v", rp.o.timeout)
	case "steps":
		return fmt.Sprintf("incomplete: a goroutine was stopped at -max-steps %d", rp.o.maxSteps)
	case "stop":
		return "incomplete: stopped at the first finding (-stop)"
	case "interrupted":
		return "incomplete: interrupted"
	case "", "error":
		return "incomplete: error"
	}
	return "incomplete: " + bound
}

// testDone reports one test and returns its exit status.
func (rp *reporter) testDone(p instrument.Package, tr testResult) int {
	if tr.report == nil {
		return rp.testFailed(p, tr)
	}
	r := *tr.report
	status := exitOK
	counts := map[string]int{}
	for _, k := range scheduler.Kinds {
		counts[string(k)] = 0
	}
	stem := rp.stem(p)
	for i, f := range r.Findings {
		counts[string(f.Kind)]++
		status = exitFindings
		path, err := replay.Write(rp.o.out, stem, rp.schedule(p, r, f), i+1)
		if err != nil {
			status = exitError
			rp.finding(p, r, f, "", fmt.Sprintf("not written: %v", err))
			continue
		}
		rp.finding(p, r, f, path, "")
	}
	if r.Complete && r.Internal == "" {
		// The files of findings an earlier run had and this one has not.
		if _, err := replay.Prune(rp.o.out, stem, p.ImportPath, r.Test, len(r.Findings)); err != nil {
			fmt.Fprintf(rp.errOut, "xbtest: removing old schedule files: %v\n", err)
		}
	}
	if r.Internal != "" {
		status = exitError
		fmt.Fprintf(rp.errOut, "xbtest: %s: %s\n", r.Test, r.Internal)
	}
	if rp.o.json {
		rp.jsonLine(jsonSummary{Event: "summary", Package: p.ImportPath, Test: r.Test, Algorithm: r.Algorithm, Memory: rp.o.memory,
			Schedules: r.Schedules, Aborted: r.Aborted, Findings: counts, Complete: r.Complete, Bound: boundOf(r.Result), Depth: r.Depth, Left: r.Left, Skipped: r.Skipped,
			Error: firstLine(r.Internal), Warnings: r.Warnings, ElapsedS: r.ElapsedS, Checkpoint: r.Backer, Notes: r.Notes})
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
		if n := len(r.Findings); n > 0 {
			detail += fmt.Sprintf(", %d finding(s)", n)
		}
		if !r.Complete && !r.Skipped {
			detail += ", " + rp.boundText(boundOf(r.Result))
			if r.Left > 0 {
				detail += fmt.Sprintf(" with at least %d schedules left (paths of up to %d blocks)", r.Left, r.Depth)
			}
		}
		fmt.Fprintf(rp.out, "--- %s: %s (%s, %s, %.2fs)\n", verdict, r.Test, r.Algorithm, detail, r.ElapsedS)
	}
	if rp.o.verbose {
		for _, n := range r.Notes {
			fmt.Fprintf(rp.out, "    %s\n", n)
		}
	}
	return status
}

// boundOf is a result's bound, "error" for an internal error.
func boundOf(r *scheduler.Result) string {
	if r.Complete || r.Skipped {
		return ""
	}
	if r.Bound == "" {
		return "error"
	}
	return r.Bound
}

// testFailed reports a test that ended without a report: its binary
// crashed or was killed. The findings it had seen are reported, without
// schedule files (they are written when a finding has been replayed, at the
// end of the test's exploration).
func (rp *reporter) testFailed(p instrument.Package, tr testResult) int {
	status := exitFindings
	if tr.bound == "interrupted" {
		status = exitError
	}
	counts := map[string]int{}
	for _, k := range scheduler.Kinds {
		counts[string(k)] = 0
	}
	r := scheduler.Report{Result: &scheduler.Result{Test: tr.test}, Algorithm: rp.o.algo}
	for _, f := range tr.found {
		counts[string(f.Kind)]++
		rp.finding(p, r, f, "", "none (the test binary ended before this finding was replayed and recorded)")
	}
	if rp.o.json {
		bound := tr.bound
		if bound == "" {
			bound = "error"
		}
		rp.jsonLine(jsonSummary{Event: "summary", Package: p.ImportPath, Test: tr.test, Algorithm: rp.o.algo, Memory: rp.o.memory,
			Findings: counts, Bound: bound, Error: tr.problem})
		return status
	}
	fmt.Fprintf(rp.out, "--- FAIL: %s (%s)\n", tr.test, tr.problem)
	if out := strings.TrimSpace(tr.output); out != "" {
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
	if ta.corpus {
		verdicts, wrong = ta.corpusVerdicts(rp.o)
	}
	if rp.o.json {
		rp.jsonLine(map[string]any{"event": "total", "tests": ta.tests, "complete": ta.complete, "schedules": ta.schedules,
			"findings": ta.findings, "corpus": verdicts, "corpus_mismatches": wrong})
		return
	}
	for _, w := range wrong {
		fmt.Fprintf(rp.out, "xbtest: %s\n", w)
	}
	line := "xbtest: " + ta.line()
	if verdicts != "" {
		line += "; " + verdicts
	}
	fmt.Fprintln(rp.out, line)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (rp *reporter) stem(p instrument.Package) string {
	if stem := rp.stems[p.ImportPath]; stem != "" {
		return stem
	}
	return path.Base(p.ImportPath)
}

// finding prints one finding; path is its schedule file, or "" and
// noFile says why there is none.
func (rp *reporter) finding(p instrument.Package, r scheduler.Report, f *scheduler.Finding, path, noFile string) {
	rel := path
	if r, err := filepath.Rel(rp.cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	if rp.o.json {
		var gs []jsonGoroutine
		for _, g := range f.Goroutines {
			gs = append(gs, jsonGoroutine{ID: g.ID, State: g.State, On: g.On, Pos: g.Pos})
		}
		jf := jsonFinding{Event: "finding", Package: p.ImportPath, Test: r.Test, Kind: string(f.Kind),
			Schedule: f.Schedule, Message: f.Message, Pos: f.Pos, Goroutines: gs, Replay: rel, NoReplay: noFile, Count: f.Count, Unreproduced: f.Unreproduced}
		if rel != "" && !rp.replaying {
			jf.ReplayCmd = "xbtest -replay " + rel
		}
		if path != "" {
			jf.jsonSize = &jsonSize{Blocks: len(f.Blocks), Preemptions: scheduler.Preemptions(f.Blocks)}
			if sh := f.Shortened; sh != nil && (sh.Blocks != len(f.Blocks) || sh.Preemptions != jf.Preemptions) {
				jf.From = &jsonSize{Blocks: sh.Blocks, Preemptions: sh.Preemptions}
			}
		}
		rp.jsonLine(jf)
		return
	}
	w := rp.out
	fmt.Fprintln(w, "==================")
	fmt.Fprintf(w, "XBTEST: %s in %s\n", strings.ToUpper(string(f.Kind)), r.Test)
	fmt.Fprintln(w, f.Message)
	if f.Pos != "" && f.Kind != scheduler.KindRace {
		fmt.Fprintf(w, "  at %s\n", f.Pos)
	}
	for i, g := range f.Goroutines {
		if f.Kind == scheduler.KindRace {
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
		if g.Stack != "" && f.Kind == scheduler.KindPanic {
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

// schedule turns a finding into a schedule file.
func (rp *reporter) schedule(p instrument.Package, r scheduler.Report, f *scheduler.Finding) *replay.Schedule {
	s := &replay.Schedule{
		Package: p.ImportPath,
		Dir:     rp.cwd,
		Test:    r.Test,
		Flags: replay.Flags{Algorithm: r.Algorithm, SyncDeps: r.SyncDeps, Memory: rp.o.memory, Granularity: rp.o.granularity, Race: rp.o.race, MaxSteps: rp.o.maxSteps,
			FairBlocks: &rp.o.fairBlocks, Timers: rp.o.timers, Tags: rp.o.tags, Instrument: rp.o.instrument},
		Finding: replay.Finding{Kind: string(f.Kind), Message: f.Message, Pos: f.Pos, Src: f.Src, Schedule: f.Schedule},
		Env:     replay.CurrentEnv(max(r.GOMAXPROCS, 1)),
	}
	if sh := f.Shortened; sh != nil {
		s.Shortened = &replay.Shortened{Blocks: sh.Blocks, Preemptions: sh.Preemptions}
	}
	for _, b := range f.Blocks {
		s.Decisions = append(s.Decisions, replay.Decision{Kind: replay.KindBlock, Goroutine: b.Goroutine, Thread: b.Thread, Points: b.Points,
			Choices: b.Choices, Mid: b.Mid, Preempt: b.Preempt, Op: b.Op, Pos: b.Pos, Fn: b.Fn, Src: b.Src, End: b.End})
	}
	return s
}

// scheduleSize describes a finding's schedule: its blocks and preemptions,
// and what minimisation made of it.
func scheduleSize(f *scheduler.Finding) string {
	p := scheduler.Preemptions(f.Blocks)
	s := fmt.Sprintf("%d blocks, %d preemptions", len(f.Blocks), p)
	switch sh := f.Shortened; {
	case sh == nil:
	case sh.Blocks != len(f.Blocks) || sh.Preemptions != p:
		s += fmt.Sprintf("; shortened from %d blocks, %d preemptions", sh.Blocks, sh.Preemptions)
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
