// Package checkpoint decides how exploration backs up to an earlier point of
// the schedule tree.
//
// The ExitBlock explorer (package scheduler) keeps its path as a list of
// decisions and its pending branches as depths of that path. To explore a
// branch it needs the program state after the first n decisions. A Backer
// provides it; the explorer does not care how. Rerun re-executes the test body
// from the start and replays the decisions; fork-based snapshots will
// implement the same interface.
package checkpoint

// Target is the program under test as a Backer sees it.
type Target interface {
	// RunFrom starts a fresh execution of the test body, replays the first
	// n decisions of the explorer's current path, and lets the explorer
	// steer the execution from there until it ends.
	RunFrom(n int)
}

// Backer brings the program under test back to a point of the current path.
type Backer interface {
	// Name is the strategy's name as the -checkpoint flag spells it.
	Name() string
	// Back runs the next execution from depth n of the current path.
	Back(t Target, n int)
}

// Rerun backs up by re-executing the test body from the beginning and
// replaying the recorded prefix of decisions. It is sound when the test
// keeps no state outside its body (no writes to package-level variables):
// every execution then starts from the same program state.
type Rerun struct{}

// Name implements Backer.
func (Rerun) Name() string { return "rerun" }

// Back implements Backer.
func (Rerun) Back(t Target, n int) { t.RunFrom(n) }
