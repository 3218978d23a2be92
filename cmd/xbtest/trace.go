package main

import (
	"os"

	"github.com/xbtest/xbtest/internal/timeline"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// writeTrace writes the HTML timeline of a replayed schedule (-replay FILE
// -trace OUT.html); package timeline draws it.
func writeTrace(path string, s *replay.Schedule, r *result.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := timeline.Page(f, traceInput(s, r)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// traceInput is the timeline of replay r of schedule s.
func traceInput(s *replay.Schedule, r *result.Result) timeline.Input {
	in := timeline.Input{Test: r.Test, Package: s.Package, Memory: r.Semantics.Memory.String(), Algorithm: r.Semantics.Algorithm.String(),
		Kind: s.Finding.Kind, Message: s.Finding.Message, Pos: s.Finding.Pos, Src: s.Finding.Src,
		Decisions: s.Decisions, Outcome: r.Replay}
	if r.Replay != nil && r.Replay.Reproduced && len(r.Findings) > 0 {
		f := r.Findings[0]
		in.Message, in.Pos, in.Goroutines = f.Message, f.Pos, f.Goroutines
	}
	return in
}
