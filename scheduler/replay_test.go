package scheduler_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
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
				got := xb.Replay(p.name, p.body, xb.DefaultConfig(), f.Blocks, result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src})
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

func countPreempt(bs []result.Block) int {
	n := 0
	for _, b := range bs {
		if b.Preempt {
			n++
		}
	}
	return n
}

// decisionProgs are findings that need a decision beyond which goroutine
// runs a block: the order of two timers due at the same instant (a tick's
// choice), a select with two ready cases, a Cond.Signal with two waiters,
// and a store-buffer flush under PSO (the flag's store commits before the
// data's). The assertion's message carries what the program saw.
var decisionProgs = []struct {
	name string
	mem  settings.Memory
	body func(*xb.T)
	// needs reports whether a schedule has the decision the finding needs.
	needs func([]result.Block) bool
}{
	{"TimerOrder", settings.SC, func(t *xb.T) {
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Send(done, true) })
		xb.Recv(done)
		t1, t2 := xb.TimeNewTimer(time.Second), xb.TimeNewTimer(time.Second)
		if i, _ := xb.Select(false, xb.RecvCase(t1.C, nil), xb.RecvCase(t2.C, nil)); i == 1 {
			t.Errorf("the second timer fired first, at %v", xb.TimeNow().Format(time.TimeOnly))
		}
	}, hasChoices},
	{"SelectChoice", settings.SC, func(t *xb.T) {
		a, b := xb.MakeChan[int](1), xb.MakeChan[int](1)
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Send(a, 1); xb.Send(b, 2); xb.Send(done, true) })
		xb.Recv(done)
		var v int
		if i, _ := xb.Select(false, xb.RecvCase(a, &v), xb.RecvCase(b, &v)); i == 1 {
			t.Errorf("took b's %d although a was ready too", v)
		}
	}, hasChoices},
	{"SignalChoice", settings.SC, func(t *xb.T) {
		var mu xb.Mutex
		c := xb.NewCond(&mu)
		var ready, wg xb.WaitGroup
		woke := xb.MakeChan[int](2)
		for i := range 2 {
			ready.Add(1)
			wg.Add(1)
			xb.Go(func() {
				defer wg.Done()
				mu.Lock()
				ready.Done()
				c.Wait() // releases mu: both wait when the test locks it
				mu.Unlock()
				xb.Send(woke, i)
			})
		}
		ready.Wait()
		mu.Lock()
		c.Signal()
		mu.Unlock()
		first := xb.Recv(woke)
		mu.Lock()
		c.Signal()
		mu.Unlock()
		wg.Wait()
		if first == 1 {
			t.Errorf("the signal woke waiter %d", first)
		}
	}, hasChoices},
	{"Flush", settings.PSO, func(t *xb.T) {
		var data, flag, r0, r1 int
		var wg xb.WaitGroup
		wg.Add(2)
		xb.Go(func() {
			defer wg.Done()
			xb.Store(&data, 1, 0)
			xb.Store(&flag, 1, 0)
		})
		xb.Go(func() {
			defer wg.Done()
			r0 = xb.Load(&flag, 0)
			r1 = xb.Load(&data, 0)
		})
		wg.Wait()
		if r0 == 1 && r1 == 0 {
			t.Errorf("saw flag %d but data %d", r0, r1)
		}
	}, func(bs []result.Block) bool {
		return slices.ContainsFunc(bs, func(b result.Block) bool { return strings.HasSuffix(b.Goroutine, " store buffer") })
	}},
}

func hasChoices(bs []result.Block) bool {
	return slices.ContainsFunc(bs, func(b result.Block) bool { return len(b.Choices) > 0 })
}

// TestReplayDecisions follows the schedules of decisionProgs' findings:
// each has the decision it needs and leads to the same finding, with the
// same message, at the same position; without the decision (the choices
// dropped, or the flush's block) it does not.
func TestReplayDecisions(t *testing.T) {
	for _, p := range decisionProgs {
		t.Run(p.name, func(t *testing.T) {
			cfg := xb.DefaultConfig()
			if p.mem != settings.SC {
				cfg = litConfig(cfg, p.mem)
			}
			res := explore(t, p.name, p.body, cfg)
			if len(res.Findings) != 1 || res.Findings[0].Kind != result.Assertion {
				t.Fatalf("findings %v", res.Findings)
			}
			f := res.Findings[0]
			if !p.needs(f.Blocks) {
				t.Fatalf("the schedule lacks the decision: %+v", f.Blocks)
			}
			want := result.Want{Kind: f.Kind, Pos: f.Pos, Src: f.Src}
			got := xb.Replay(p.name, p.body, cfg, f.Blocks, want)
			if out := got.Replay; !out.Reproduced || out.Diverged != "" || got.Internal != "" {
				t.Fatalf("not reproduced: diverged %q, internal %q, findings %v\nblocks %+v", out.Diverged, got.Internal, got.Findings, f.Blocks)
			}
			if g := got.Findings[0]; g.Message != f.Message || g.Pos != f.Pos {
				t.Errorf("replayed %q at %s, recorded %q at %s", g.Message, g.Pos, f.Message, f.Pos)
			}
			// Without the decision the schedule leads elsewhere or diverges.
			var without []result.Block
			for _, b := range f.Blocks {
				if strings.HasSuffix(b.Goroutine, " store buffer") {
					continue
				}
				b.Choices = nil
				without = append(without, b)
			}
			if got := xb.Replay(p.name, p.body, cfg, without, want); got.Replay.Reproduced {
				t.Errorf("reproduced without the decision: %+v", without)
			}
		})
	}
}
