package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/scheduler"
)

// runReplay is xbtest -replay FILE: it rewrites and builds the file's
// package as a normal run does, and has the test binary follow the file's
// schedule instead of exploring. Exit status: 1 when the schedule leads to
// its finding again (as go test failing), 2 when the file cannot be used or
// the program no longer follows it (a divergence is not the finding: the
// file is out of date, as a build error is).
func runReplay(ctx context.Context, o *options, stdout, stderr io.Writer, log *zap.Logger) int {
	s, err := replay.Read(o.replay)
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	// The file's settings, not the command line's defaults.
	f := s.Flags
	o.algo, o.syncDeps, o.race, o.maxSteps, o.tags, o.instrument = f.Algorithm, f.SyncDeps, f.Race, f.MaxSteps, f.Tags, f.Instrument
	if o.race == "" {
		o.race = "hb"
	}
	o.fairBlocks = 100
	o.timers = "synctest"
	if f.Timers != "" {
		o.timers = f.Timers
	}
	if f.FairBlocks != nil {
		o.fairBlocks = *f.FairBlocks
	}
	switch o.memory, o.granularity = f.Memory, f.Granularity; o.memory {
	case "":
		o.memory = "sc"
	case "sc", "tso", "pso":
	default:
		fmt.Fprintf(stderr, "xbtest: %s: memory model %s is not supported by this xbtest\n", o.replay, f.Memory)
		return exitError
	}
	if o.memory != "sc" {
		o.granularity = "access" // implied, as on the command line
	} else if o.granularity == "" {
		o.granularity = "sync"
	}
	o.run = "^" + regexp.QuoteMeta(s.Test) + "$"
	dir := s.Dir
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = cwd()
	}
	tmp, err := makeTemp()
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	defer os.RemoveAll(tmp)
	spec := scheduler.ReplaySpec{Want: scheduler.Want{Kind: scheduler.Kind(s.Finding.Kind), Pos: s.Finding.Pos, Src: s.Finding.Src, Message: s.Finding.Message}}
	spec.Blocks = blocksOf(s)
	b, _ := json.Marshal(spec)
	o.replaySpec = filepath.Join(tmp, "replay.json")
	if err := os.WriteFile(o.replaySpec, b, 0o644); err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}

	plan, err := instrument.Prepare(ctx, instrument.Options{
		Dir:      dir,
		Patterns: []string{s.Package},
		Extra:    o.instrument,
		Tags:     o.tags,
		Memory:   o.memory,
		CacheDir: filepath.Join(tmp, "plan"),
		Log:      func(format string, a ...any) { log.Sugar().Debugf(format, a...) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	defer plan.Cleanup()
	if len(plan.Packages) != 1 {
		fmt.Fprintf(stderr, "xbtest: %s: package %s not found in %s\n", o.replay, s.Package, dir)
		return exitError
	}
	p := plan.Packages[0]
	res, err := runPackage(ctx, plan, p, o, tmp, log, nil, func(testResult) {})
	if ctx.Err() != nil || res != nil && res.interrupted {
		fmt.Fprintln(stderr, "xbtest: interrupted")
		return exitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %s: %v\n", p.ImportPath, err)
		return exitError
	}
	rp := &reporter{out: stdout, errOut: stderr, o: o, cwd: cwd(), replaying: true}
	if res.buildErr != "" {
		rp.buildFailed(p, res.buildErr)
		return exitError
	}
	var r *scheduler.Report
	for _, tr := range res.results {
		if tr.test != s.Test {
			continue
		}
		if tr.report == nil {
			fmt.Fprintf(stderr, "xbtest: %s: %s: %s\n%s", o.replay, s.Test, tr.problem, tr.output)
			return exitError
		}
		if tr.report.Replay != nil {
			r = tr.report
		}
	}
	if r == nil {
		fmt.Fprintf(stderr, "xbtest: %s: test %s did not run in %s (renamed or removed?)\n", o.replay, s.Test, p.ImportPath)
		return exitError
	}
	return rp.replayed(p, s, r)
}

// replayed reports a replay and returns the exit status.
func (rp *reporter) replayed(p instrument.Package, s *replay.Schedule, r *scheduler.Report) int {
	out := r.Replay
	if rp.o.trace != "" {
		if err := writeTrace(rp.o.trace, s, r); err != nil {
			fmt.Fprintf(rp.errOut, "xbtest: writing the trace: %v\n", err)
		}
	}
	status := exitError
	if out.Reproduced && len(r.Findings) > 0 {
		status = exitFindings
	}
	if rp.o.json {
		for _, f := range r.Findings {
			if out.Reproduced {
				rp.finding(p, *r, f, rp.o.replay, "")
			}
		}
		rp.jsonLine(map[string]any{"event": "replay", "package": p.ImportPath, "test": r.Test, "replay": rp.o.replay,
			"reproduced": out.Reproduced, "diverged": out.Diverged, "steps": out.Steps, "finding_step": out.FindingStep, "internal": r.Internal})
		return status
	}
	w := rp.out
	fmt.Fprintf(w, "xbtest: replaying %s: %s in %s, %d blocks\n", rp.o.replay, r.Test, p.ImportPath, len(s.Decisions))
	if rp.o.verbose || !out.Reproduced {
		steps := out.Steps
		from := 0
		if !rp.o.verbose && len(steps) > 10 {
			from = len(steps) - 10 // the last steps before the divergence
			fmt.Fprintf(w, "  ... %d earlier steps (-v shows them)\n", from)
		}
		gw, ow := 8, 22 // column widths: the longest goroutine name and operation
		for _, st := range steps[from:] {
			if st.G != "" {
				gw, ow = max(gw, len(st.G)), max(ow, len(st.Op))
			}
		}
		for i := from; i < len(steps); i++ {
			st := steps[i]
			if st.G == "" { // virtual time advancing, between blocks
				fmt.Fprintf(w, "  %4d            %-*s %s\n", i+1, gw, "", st.Op)
				continue
			}
			fmt.Fprintf(w, "  %4d  block %-3d %-*s %-*s %s\n", i+1, st.Block, gw, st.G, ow, st.Op, st.Pos)
			if i+1 == out.FindingStep && out.Reproduced {
				fmt.Fprintf(w, "        >>> %s\n", s.Finding.Kind)
			}
		}
	}
	if r.Internal != "" {
		fmt.Fprintf(rp.errOut, "xbtest: %s: %s\n", r.Test, r.Internal)
		return exitError
	}
	switch {
	case out.Reproduced:
		for _, f := range r.Findings {
			f.Blocks = blocksOf(s)
			rp.finding(p, *r, f, rp.o.replay, "")
			if f.Message != s.Finding.Message {
				fmt.Fprintf(w, "xbtest: the same %s at the same place, but the message has changed since the schedule was recorded: it was %q\n", f.Kind, s.Finding.Message)
			}
		}
		fmt.Fprintf(w, "--- FAIL: %s (replayed %d steps: the same %s)\n", r.Test, len(out.Steps), s.Finding.Kind)
	case out.Diverged != "":
		fmt.Fprintf(w, "xbtest: replay diverged: the program no longer follows the schedule (changed since it was recorded?)\n  %s\n", out.Diverged)
		rp.envChanged(s, r)
		fmt.Fprintf(w, "--- DIVERGED: %s (after %d steps)\n", r.Test, len(out.Steps))
	default:
		var got []string
		for _, f := range r.Findings {
			got = append(got, fmt.Sprintf("%s at %s", f.Kind, f.Pos))
		}
		if len(got) == 0 {
			got = []string{"no finding"}
		}
		fmt.Fprintf(w, "xbtest: the schedule was followed to its end but did not lead to the %s at %s; it led to %s\n",
			s.Finding.Kind, s.Finding.Pos, strings.Join(got, ", "))
		rp.envChanged(s, r)
		fmt.Fprintf(w, "--- DIVERGED: %s (after %d steps)\n", r.Test, len(out.Steps))
	}
	return status
}

// envChanged says which parts of the environment differ from the
// recording's, when a replay did not lead where it should.
func (rp *reporter) envChanged(s *replay.Schedule, r *scheduler.Report) {
	if ch := s.Env.Changed(replay.CurrentEnv(max(r.GOMAXPROCS, 1))); len(ch) > 0 {
		fmt.Fprintf(rp.out, "xbtest: note: since the schedule was recorded, the environment changed: %s\n", strings.Join(ch, ", "))
	}
}

// blocksOf returns the blocks of a schedule file, for the report.
func blocksOf(s *replay.Schedule) []scheduler.Block {
	var bs []scheduler.Block
	for _, d := range s.Decisions {
		bs = append(bs, scheduler.Block{Goroutine: d.Goroutine, Thread: d.Thread, Points: d.Points, Choices: d.Choices,
			Mid: d.Mid, Preempt: d.Preempt, Op: d.Op, Pos: d.Pos, Fn: d.Fn, Src: d.Src, End: d.End})
	}
	return bs
}
