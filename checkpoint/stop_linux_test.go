//go:build linux

package checkpoint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// stopRaceTarget is a Target whose state says which process saved it and
// whether it is whole (saved after a stop) or relative to the saver's
// parent, as the driver's is; Load refuses a relative state from any
// process but a child, as the explorer refuses a stack it does not have.
// Its Save lets the stop arrive right after it has read the flag, as the
// root's -timeout timer can.
type stopRaceTarget struct {
	f     *Fork
	gen   int // forks between the root and this process
	execs int
	fails []string
	notes []string
}

type stopRaceState struct {
	Gen, Execs int
	Whole      bool
	Fails      []string
}

func (s *stopRaceTarget) Next() int {
	if StopRequested() != NoStop || s.execs > 0 {
		return -1
	}
	return 0
}

// RunFrom runs the one execution: a snapshot at depth 1 whose first child
// finishes it.
func (s *stopRaceTarget) RunFrom(int) {
	if s.f.AtBranchPoint(s, 1, 0) == Continue {
		s.execs++
	}
}

func (s *stopRaceTarget) Save() []byte {
	b, _ := json.Marshal(stopRaceState{Gen: s.gen, Execs: s.execs, Whole: StopRequested() != NoStop, Fails: s.fails})
	RequestStop(StopTime) // the timer fires now, after the flag was read
	return b
}

func (s *stopRaceTarget) Load(b []byte) error {
	var st stopRaceState
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	if !st.Whole && st.Gen != s.gen+1 {
		return fmt.Errorf("process %d took the relative state of process %d, not its child", s.gen, st.Gen)
	}
	s.execs, s.fails = st.Execs, st.Fails
	return nil
}

func (s *stopRaceTarget) Clean() (bool, string) { return true, "" }
func (s *stopRaceTarget) Describe()             {}
func (s *stopRaceTarget) Forked()               { s.gen++ }
func (s *stopRaceTarget) Alive()                {}
func (s *stopRaceTarget) Fail(msg string)       { s.fails = append(s.fails, msg) }
func (s *stopRaceTarget) Note(msg string)       { s.notes = append(s.notes, msg) }

// A stop that arrives while a forked process saves its state: the state
// goes to the parent, which saves again, whole, for the zygote. Reading
// the stop after saving sent the zygote a state relative to a snapshot
// two levels below it (the cause of "a forked child kept 26 branches of
// 0" under -timeout).
func TestStopWhileSavingHandsTheZygoteAWholeState(t *testing.T) {
	ClearStop()
	defer ClearStop()
	f := NewFork(false).SnapshotEverywhere()
	s := &stopRaceTarget{f: f}
	f.Explore(s)
	for _, n := range s.notes {
		if strings.Contains(n, "re-running the test body instead") {
			t.Skip(n)
		}
	}
	if len(s.fails) > 0 || s.execs != 1 {
		t.Fatalf("executions %d, want 1; failures %q", s.execs, s.fails)
	}
}
