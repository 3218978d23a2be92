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
	*jsonSize                  // the schedule file's, when one was written
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
	ElapsedS  float64        `json:"elapsed_s"`
	// Checkpoint is how exploration backed up, Notes why (an addition to
	// DESIGN.md's line; parsers ignore fields they do not know).
	Checkpoint string   `json:"checkpoint,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

func (rp *reporter) jsonLine(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(rp.out, "%s\n", b)
}

// noTests reports a package without tests.
func (rp *reporter) noTests(p instrument.Package) {
	if rp.o.json {
		fmt.Fprintf(rp.errOut, "?   \t%s\t[no test files]\n", p.ImportPath)
		return
	}
	fmt.Fprintf(rp.out, "?   \t%s\t[no test files]\n", p.ImportPath)
}

// buildFailed reports a package that does not compile.
func (rp *reporter) buildFailed(p instrument.Package, msg string) {
	fmt.Fprintf(rp.errOut, "%s\nFAIL\t%s [build failed]\n", msg, p.ImportPath)
}

// pkg reports the results of one package and returns its exit status.
func (rp *reporter) pkg(p instrument.Package, run *pkgRun) int {
	status := exitOK
	reported := map[string]bool{}
	for _, r := range run.reports {
		reported[r.Test] = true
		if s := rp.test(p, r); s > status {
			status = s
		}
	}
	for _, name := range run.failed {
		if reported[name] || strings.Contains(name, "/") {
			continue
		}
		// go test saw the test fail but the exploration reported nothing:
		// the test binary crashed or exited.
		status = max(status, exitFindings)
		fmt.Fprintf(rp.errOut, "--- FAIL: %s (the test binary ended without an xbtest report)\n%s", name, run.output[name])
	}
	if rp.o.json {
		return status
	}
	verdict := "ok  "
	if status != exitOK {
		verdict = "FAIL"
	}
	fmt.Fprintf(rp.out, "%s\t%s\t%.3fs\n", verdict, p.ImportPath, run.elapsed.Seconds())
	return status
}

// test reports one explored test.
func (rp *reporter) test(p instrument.Package, r scheduler.Report) int {
	status := exitOK
	counts := map[string]int{}
	for _, k := range scheduler.Kinds {
		counts[string(k)] = 0
	}
	stem := rp.stems[p.ImportPath]
	if stem == "" {
		stem = path.Base(p.ImportPath)
	}
	for i, f := range r.Findings {
		counts[string(f.Kind)]++
		status = exitFindings
		path, err := replay.Write(rp.o.out, stem, rp.schedule(p, r, f), i+1)
		if err != nil {
			fmt.Fprintf(rp.errOut, "xbtest: writing the schedule file: %v\n", err)
		}
		rp.finding(p, r, f, path)
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
			Schedules: r.Schedules, Aborted: r.Aborted, Findings: counts, Complete: r.Complete, ElapsedS: r.ElapsedS,
			Checkpoint: r.Backer, Notes: r.Notes})
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
	if verdict != "PASS" || rp.o.verbose {
		detail := fmt.Sprintf("%d schedules, %d aborted", r.Schedules, r.Aborted)
		if n := len(r.Findings); n > 0 {
			detail += fmt.Sprintf(", %d finding(s)", n)
		}
		if !r.Complete {
			bound := r.Bound
			if bound == "" {
				bound = "error"
			}
			detail += ", incomplete: " + bound
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

// finding prints one finding.
func (rp *reporter) finding(p instrument.Package, r scheduler.Report, f *scheduler.Finding, path string) {
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
			Schedule: f.Schedule, Message: f.Message, Pos: f.Pos, Goroutines: gs, Replay: rel}
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
	if !rp.replaying {
		fmt.Fprintf(w, "\nFirst seen on schedule %d; seen on %d of %d schedules.\n", f.Schedule, f.Count, r.Schedules)
	} else {
		fmt.Fprintln(w)
	}
	if path != "" {
		fmt.Fprintf(w, "Schedule: %s (%s)\n", rel, scheduleSize(f))
		if !rp.replaying {
			fmt.Fprintf(w, "Replay:   xbtest -replay %s\n", rel)
		}
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
			Tags: rp.o.tags, Instrument: rp.o.instrument},
		Finding: replay.Finding{Kind: string(f.Kind), Message: f.Message, Pos: f.Pos, Src: f.Src, Schedule: f.Schedule},
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
