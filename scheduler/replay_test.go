package scheduler_test

import (
	"testing"

	xb "github.com/xbtest/xbtest/scheduler"
)

var replayProgs = []struct {
	name string
	body func(*xb.T)
}{
	{"SplitSync", splitSync}, {"NoEraser", noEraser}, {"Deadlock", deadlock}, {"Deadlock3", deadlock3},
	{"DeadlockWait", deadlockWait}, {"BufferIf", bufferIf}, {"BufferNotify", bufferNotify},
	{"Fig217", fig217}, {"Fig220", fig220},
}

// TestReplayFindings follows the schedule of every finding of the thesis
// programs: each leads to the same finding, at the same position, and the
// trace ends its steps at the recorded blocks.
func TestReplayFindings(t *testing.T) {
	for _, p := range replayProgs {
		t.Run(p.name, func(t *testing.T) {
			res := xb.Explore(p.name, p.body, xb.DefaultConfig())
			if res.Internal != "" || len(res.Findings) == 0 {
				t.Fatalf("exploration: %d findings, %s", len(res.Findings), res.Internal)
			}
			for _, f := range res.Findings {
				if len(f.Blocks) == 0 {
					t.Fatalf("%s finding without blocks", f.Kind)
				}
				got := xb.Replay(p.name, p.body, xb.DefaultConfig(), f.Blocks, xb.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
				out := got.Replay
				if !out.Reproduced || out.Diverged != "" || got.Internal != "" {
					t.Errorf("%s at %s (%d blocks): not reproduced: diverged %q, internal %q, findings %v", f.Kind, f.Pos, len(f.Blocks), out.Diverged, got.Internal, got.Findings)
					continue
				}
				if g := got.Findings[0]; g.Kind != f.Kind || g.Pos != f.Pos {
					t.Errorf("replayed %s at %s, want %s at %s", g.Kind, g.Pos, f.Kind, f.Pos)
				}
				if out.FindingStep < 0 || len(out.Steps) == 0 {
					t.Errorf("%s: no steps (%d) or finding step %d", f.Kind, len(out.Steps), out.FindingStep)
				}
				if f.Shortened != nil {
					t.Logf("%s %s: shortened from %d to %d blocks (%d preemptions to %d) in %d tries", p.name, f.Kind,
						f.Shortened.Blocks, len(f.Blocks), f.Shortened.Preemptions, countPreempt(f.Blocks), f.Shortened.Tries)
				}
			}
		})
	}
}

func countPreempt(bs []xb.Block) int {
	n := 0
	for _, b := range bs {
		if b.Preempt {
			n++
		}
	}
	return n
}

// TestMinimise takes the longest failing schedule ExitBlock-DD explores
// (SplitSync, NoEraser, DeadlockWait) and shortens it: the result has at
// most the preemptions the bug needs (SplitSync one, the lost signal of
// DeadlockWait none; NoEraser's greedy result two, one more than its
// minimum) and still leads to the same failure.
func TestMinimise(t *testing.T) {
	for _, p := range []struct {
		name string
		body func(*xb.T)
		kind xb.Kind
		want int // preemptions at most
	}{{"SplitSync", splitSync, xb.KindAssertion, 1}, {"NoEraser", noEraser, xb.KindRace, 2}, {"DeadlockWait", deadlockWait, xb.KindDeadlock, 0}} {
		t.Run(p.name, func(t *testing.T) {
			cfg := xb.DefaultConfig()
			cfg.Algorithm = xb.ExitBlockDD
			worst := xb.WorstSchedule(p.name, p.body, cfg, p.kind)
			if worst == nil {
				t.Fatal("no failing schedule")
			}
			short, sh := xb.MinimiseSchedule(p.name, p.body, xb.DefaultConfig(), worst, p.kind)
			if short == nil || sh == nil {
				t.Fatal("the worst schedule does not lead to the finding")
			}
			t.Logf("%s: shortened from %d to %d blocks (%d preemptions to %d) in %d tries", p.name, len(worst), len(short), countPreempt(worst), countPreempt(short), sh.Tries)
			if countPreempt(worst) <= p.want || countPreempt(short) > p.want || len(short) >= len(worst) {
				t.Errorf("%d blocks, %d preemptions, from %d and %d: want at most %d preemptions", len(short), countPreempt(short), len(worst), countPreempt(worst), p.want)
			}
			if sh.Blocks != len(worst) || sh.Preemptions != countPreempt(worst) {
				t.Errorf("recorded the original as %+v", sh)
			}
			got := xb.Replay(p.name, p.body, xb.DefaultConfig(), short, xb.Want{Kind: p.kind})
			if !got.Replay.Reproduced {
				t.Errorf("the short schedule does not lead to the %s: %s", p.kind, got.Replay.Diverged)
			}
		})
	}
}
