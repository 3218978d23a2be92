package result_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/xbtest/xbtest/result"
)

// Every event type decodes back into itself; an unknown event is an error.
func TestDecodeEvent(t *testing.T) {
	for _, ev := range []any{
		&result.FindingEvent{Event: result.EventFinding, Package: "p", Test: "TestX", Kind: result.Deadlock, Schedule: 2, Message: "m",
			Goroutines: []result.Goroutine{{ID: "T0", State: "waiting", On: "WaitGroup.Wait", Pos: "x.go:3"}}, Replay: "out/p.TestX.1.json",
			Size: &result.Size{Blocks: 3, Preemptions: 1, From: &result.Size{Blocks: 9, Preemptions: 5}}},
		&result.SummaryEvent{Event: result.EventSummary, Package: "p", Test: "TestX", Algorithm: "exitblock-rwdd", Memory: "sc", Schedules: 7,
			Findings: map[string]int{"deadlock": 1}, Bound: result.BoundTime, ElapsedS: 1.5},
		&result.PackageEvent{Event: result.EventPackage, Package: "p", Result: "FAIL", ElapsedS: 2},
		&result.TotalEvent{Event: result.EventTotal, Tests: 3, Complete: 2, Schedules: 10, Findings: map[string]int{"race": 1}},
		&result.ReplayEvent{Event: result.EventReplay, Package: "p", Test: "TestX", Replay: "f.json", Reproduced: true,
			Steps: []result.TraceStep{{G: "T0", Op: "go", Pos: "x.go:4"}}, FindingStep: 1},
	} {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := result.DecodeEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("%s decodes as %+v", b, got)
		}
	}
	for _, bad := range []string{`{"event":"progress"}`, `{}`, `not json`} {
		if v, err := result.DecodeEvent([]byte(bad)); err == nil {
			t.Errorf("%s decodes as %+v", bad, v)
		}
	}
}

func TestPreemptionsAndBound(t *testing.T) {
	bs := []result.Block{{Goroutine: "T0"}, {Goroutine: "T0.1", Preempt: true}, {Goroutine: "T0", Preempt: true}, {Goroutine: "T0.1", Mid: true}}
	if n := result.Preemptions(bs); n != 2 {
		t.Errorf("%d preemptions, want 2", n)
	}
	for _, c := range []struct {
		r    result.Result
		want string
	}{
		{result.Result{Complete: true}, ""},
		{result.Result{Skipped: true}, ""},
		{result.Result{Bound: result.BoundSchedules}, result.BoundSchedules},
		{result.Result{Internal: "boom"}, result.BoundError},
	} {
		if got := c.r.BoundOf(); got != c.want {
			t.Errorf("%+v: bound %q, want %q", c.r, got, c.want)
		}
	}
}

func TestFindingWantAndKinds(t *testing.T) {
	f := &result.Finding{Kind: result.Race, Message: "data race on x", Pos: "x.go:9", Src: "x++", Schedule: 4}
	if w := f.Want(); w != (result.Want{Kind: result.Race, Message: "data race on x", Pos: "x.go:9", Src: "x++"}) {
		t.Errorf("want %+v", w)
	}
	r := result.Result{Findings: []*result.Finding{{Kind: result.Leak}, f, {Kind: result.Race}}}
	if got := r.Kinds(); !reflect.DeepEqual(got, []result.Kind{result.Race, result.Race, result.Leak}) {
		t.Errorf("kinds %v", got)
	}
}
