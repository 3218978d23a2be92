package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// runReplay is xbtest -replay FILE: it rewrites and builds the file's
// package as a normal run does, and has the test binary follow the file's
// schedule instead of exploring. Exit status: 1 when the schedule leads to
// its finding again (as go test failing), 2 when the file cannot be used or
// the program no longer follows it (a divergence is not the finding: the
// file is out of date, as a build error is).
func runReplay(ctx context.Context, o *options, stdout, stderr io.Writer, log *zap.Logger) int {
	opt := o.apiOptions(log)
	prog := newProgress(stderr, o.json)
	opt.Status = prog.update
	rep, err := xbtest.Replay(ctx, o.replay, opt)
	prog.close()
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	rp := &reporter{out: stdout, errOut: stderr, o: o, cwd: cwd(), replaying: true}
	if rep.BuildError != "" {
		rp.buildFailed(rep.Package, rep.BuildError)
		return exitError
	}
	return rp.replayed(rep.Package, rep.Schedule, rep.Test.Result)
}

// replayed reports a replay and returns the exit status.
func (rp *reporter) replayed(pkg string, s *replay.Schedule, r *result.Result) int {
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
				rp.finding(pkg, r, f, rp.o.replay, "")
			}
		}
		rp.jsonLine(result.ReplayEvent{Event: result.EventReplay, Package: pkg, Test: r.Test, Replay: rp.o.replay,
			Reproduced: out.Reproduced, Diverged: out.Diverged, Steps: out.Steps, FindingStep: out.FindingStep, Internal: r.Internal,
			Locks: out.Locks, Waits: out.Waits, Marks: out.Marks, Final: out.Final})
		return status
	}
	w := rp.out
	fmt.Fprintf(w, "xbtest: replaying %s: %s in %s, %d blocks\n", rp.o.replay, r.Test, pkg, len(s.Decisions))
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
			f.Blocks = s.Decisions
			rp.finding(pkg, r, f, rp.o.replay, "")
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
func (rp *reporter) envChanged(s *replay.Schedule, r *result.Result) {
	if ch := s.Env.Changed(replay.CurrentEnv(max(r.GOMAXPROCS, 1))); len(ch) > 0 {
		fmt.Fprintf(rp.out, "xbtest: note: since the schedule was recorded, the environment changed: %s\n", strings.Join(ch, ", "))
	}
}
