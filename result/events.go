package result

import (
	"encoding/json"
	"fmt"

	"github.com/xbtest/xbtest/settings"
)

// The JSON that xbtest speaks, in two streams.
//
// The results file: the command starts a rewritten test binary with its
// settings (RunConfig), and the binary appends one Line per event to
// the file the command names (XBTEST_RESULTS), and the command reads it as
// it grows, so that a crash, a kill or an interrupt loses nothing already
// found (scheduler/internal/driver/runtest.go has the whole protocol).
//
// The output of `xbtest -json`: one object per line, each with an "event"
// field saying which of FindingEvent, SummaryEvent, PackageEvent,
// TotalEvent and ReplayEvent it is. DecodeEvent reads a line into the right one.

// The environment variables of the protocol: the command sets them when it
// starts a test binary (Env), the binary reads them.
const (
	EnvConfig   = "XBTEST_CONFIG"   // the settings: JSON of RunConfig
	EnvResults  = "XBTEST_RESULTS"  // the results file the binary appends Lines to
	EnvProgress = "XBTEST_PROGRESS" // the file the binary rewrites with its Progress
	EnvStop     = "XBTEST_STOP"     // a file whose appearance asks the binary to stop
	EnvSkip     = "XBTEST_SKIP"     // JSON list of tests an earlier process explored
	EnvTmpDir   = "XBTEST_TMPDIR"   // the run's temporary directory (package checkpoint's files)
	EnvParent   = "XBTEST_PARENT"   // the command's pid: the binary exits when it is gone
)

// Env returns the environment entries ("NAME=value") that start a test
// binary under xbtest with cfg, its results file and the run's temporary
// directory; the other variables are optional.
func Env(cfg RunConfig, results, tmpDir string) ([]string, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return []string{"XBTEST=1", EnvConfig + "=" + string(b), EnvResults + "=" + results, EnvTmpDir + "=" + tmpDir}, nil
}

// RunConfig is what the command passes to the test binary in
// XBTEST_CONFIG: the settings, already normalised, and for -replay the
// schedule to follow.
type RunConfig struct {
	settings.Settings
	Replay string `json:"replay,omitempty"` // a ReplaySpec file: follow it instead of exploring
	// Timelines: every finding carries the timeline of the replay that
	// verified it (Finding.Timeline), for xbtest -html.
	Timelines bool `json:"timelines,omitempty"`
	// Shard: explore only this part of each test's schedule tree.
	Shard Shard `json:"shard,omitzero"`
	// Team: explore Shard's part together with the other members of a
	// team (-parallel), each claiming parts of the tree as it meets them.
	Team *Team `json:"team,omitempty"`
}

// Team makes a test binary one member of the processes that explore a
// package's tests together (-parallel, scheduler/internal/shard): they
// share claims files in Dir (package internal/claims). A lane runs the
// package's tests in order and explores those it claims first, leaving
// the others to the lanes that claimed them (LineElsewhere); a member
// that is not a lane joins one test a lane explores. Every member of a
// test claims parts of its tree (a claims file per test and restart), and
// the first to meet a part explores it.
type Team struct {
	Member int    `json:"member"` // numbered in the run: claims tell members apart by it
	Dir    string `json:"dir"`
	Lane   bool   `json:"lane,omitempty"`
}

// ReplaySpec is the schedule a test binary follows under xbtest -replay,
// and the finding it must lead to.
type ReplaySpec struct {
	Blocks []Block `json:"blocks"`
	Want   Want    `json:"want"`
}

// Line events of the results file.
const (
	LineStart    = "start"    // the binary begins exploring Test
	LineFound    = "found"    // a distinct finding, the moment exploration first sees it
	LineDescribe = "describe" // exploration is over; the binary replays Test's findings to describe them
	LineSummary  = "summary"  // Test is done: Result
	LineExit     = "exit"     // the binary stops itself after Test, for Reason
	// LineElsewhere: another lane of the team claimed Test first and
	// explores it (Team.Lane); this binary goes on with the next.
	LineElsewhere = "elsewhere"
)

// Reasons of a test binary that stops itself after a test (a LineExit), so
// that the command starts a fresh one for the remaining tests.
const (
	ExitTainted     = "tainted"     // a goroutine xbtest could not stop is still running
	ExitInterrupted = "interrupted" // the command asked the binary to stop
)

// Line is one line of the results file.
type Line struct {
	Event   string   `json:"event"` // Line*
	Test    string   `json:"test"`
	Reason  string   `json:"reason,omitempty"`  // LineExit: Exit*
	Finding *Finding `json:"finding,omitempty"` // LineFound: as first seen, not yet replayed for its report
	Result  *Result  `json:"result,omitempty"`  // LineSummary
}

// Progress is what a test binary writes, about once a second, to the file
// XBTEST_PROGRESS names (replacing its content): how far exploration of
// Test has got.
type Progress struct {
	Test      string `json:"test"`
	Schedules int    `json:"schedules"`
	Findings  int    `json:"findings"`
	Depth     int    `json:"depth,omitempty"`     // where the next schedule branches off, in blocks: the frontier
	MaxDepth  int    `json:"max_depth,omitempty"` // the longest path so far, in blocks
	Left      int    `json:"left,omitempty"`      // branches left to explore, each at least one schedule
}

// Events of `xbtest -json`.
const (
	EventFinding = "finding"
	EventSummary = "summary"
	EventPackage = "package"
	EventTotal   = "total"
	EventReplay  = "replay"
)

// FindingEvent is a finding as `xbtest -json` prints it: one per finding,
// before its test's summary.
type FindingEvent struct {
	Event      string      `json:"event"` // EventFinding
	Package    string      `json:"package"`
	Test       string      `json:"test"`
	Kind       Kind        `json:"kind"`
	Schedule   int         `json:"schedule"` // the first schedule that showed it (1-based)
	Message    string      `json:"message"`
	Pos        string      `json:"pos,omitempty"`
	Goroutines []Goroutine `json:"goroutines"`
	Replay     string      `json:"replay"`                   // its schedule file, relative to the working directory when below it
	ReplayCmd  string      `json:"replay_command,omitempty"` // the command that replays it
	NoReplay   string      `json:"no_replay,omitempty"`      // why there is no schedule file
	// Unreproduced says why replaying the schedule did not lead to the
	// finding again (see Finding).
	Unreproduced string `json:"unreproduced,omitempty"`
	Count        int    `json:"count,omitempty"` // executions that showed it
	// Key tells findings apart as exploration does: xbtest merge merges
	// the shards' findings by it.
	Key   string `json:"key,omitempty"`
	*Size        // the schedule file's, when one was written
}

// Size is the size of a finding's schedule and, when minimisation
// shortened it, that of the schedule exploration found.
type Size struct {
	Blocks      int   `json:"blocks"`
	Preemptions int   `json:"preemptions"`
	From        *Size `json:"shortened_from,omitempty"`
	// ShorteningStopped: minimisation reached its time bound with
	// candidates left untried (a long schedule).
	ShorteningStopped bool `json:"shortening_stopped,omitempty"`
}

// SummaryEvent ends a test.
type SummaryEvent struct {
	Event     string         `json:"event"` // EventSummary
	Package   string         `json:"package"`
	Test      string         `json:"test"`
	Algorithm string         `json:"algorithm"`
	Memory    string         `json:"memory"`
	Schedules int            `json:"schedules"`
	Aborted   int            `json:"aborted"`
	Findings  map[string]int `json:"findings"` // by kind, every kind present
	Complete  bool           `json:"complete"`
	// Bound is why exploration is incomplete: Bound* ("schedules", "time",
	// "steps", "stop", "interrupted", "error": Error says what).
	Bound string `json:"bound,omitempty"`
	// Depth is the deepest path explored (blocks); Left, when incomplete,
	// the branches left to explore: at least that many schedules more.
	Depth int `json:"depth,omitempty"`
	Left  int `json:"left,omitempty"`
	// Strategy is the order of exploration (omitted: dfs); Seed the seed
	// of a sampling one; PreemptionsComplete, for pb cut short, the
	// preemptions up to which every schedule was explored.
	Strategy            string   `json:"strategy,omitempty"`
	Seed                uint64   `json:"seed,omitempty"`
	PreemptionsComplete *int     `json:"preemptions_complete,omitempty"`
	Skipped             bool     `json:"skipped,omitempty"`
	Error               string   `json:"error,omitempty"`
	Warnings            []string `json:"warnings,omitempty"`
	ElapsedS            float64  `json:"elapsed_s"`
	// Checkpoint is how exploration backed up, Notes why (and, with race
	// detection, the locations shared without a common lock).
	Checkpoint string   `json:"checkpoint,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Shard is "i/n" when the run explored shard i of n (-shard): the
	// figures are that part's, and xbtest merge adds the parts up.
	// ShardLearnt is Result.ShardLearnt.
	Shard       string `json:"shard,omitempty"`
	ShardLearnt string `json:"shard_learnt,omitempty"`
}

// PackageEvent ends a package, as go test's ok or FAIL line. Result is
// "ok", "FAIL", "no test files", "no tests to run", "build failed" (Output:
// the compiler's) or "interrupted".
type PackageEvent struct {
	Event    string  `json:"event"` // EventPackage
	Package  string  `json:"package"`
	Result   string  `json:"result"`
	Output   string  `json:"output,omitempty"`
	ElapsedS float64 `json:"elapsed_s"`
	// CachedBuild: the package's test binary came from the build cache
	// (unchanged since a run that built it).
	CachedBuild bool `json:"cached_build,omitempty"`
	// ExamplesNotRun counts the examples go test would run (those with an
	// output comment): xbtest explores tests only.
	ExamplesNotRun int `json:"examples_not_run,omitempty"`
}

// TotalEvent ends the run: the totals over its tests and, when the run
// explored xbtest's corpus, the comparison with its manifest.
type TotalEvent struct {
	Event            string         `json:"event"` // EventTotal
	Tests            int            `json:"tests"`
	Complete         int            `json:"complete"` // tests explored completely
	Schedules        int            `json:"schedules"`
	Findings         map[string]int `json:"findings"`                    // by kind
	Corpus           string         `json:"corpus,omitempty"`            // e.g. "corpus: 48 of 48 known bugs found, ..."
	CorpusMismatches []string       `json:"corpus_mismatches,omitempty"` // verdicts that differ from the manifest's
	Shard            string         `json:"shard,omitempty"`             // "i/n": the run explored shard i of n (-shard)
}

// ReplayEvent is what `xbtest -replay FILE -json` prints after the
// finding, if the schedule led to it again.
type ReplayEvent struct {
	Event       string      `json:"event"` // EventReplay
	Package     string      `json:"package"`
	Test        string      `json:"test"`
	Replay      string      `json:"replay"` // the schedule file
	Reproduced  bool        `json:"reproduced"`
	Diverged    string      `json:"diverged"` // where the program stopped following the schedule
	Steps       []TraceStep `json:"steps"`
	FindingStep int         `json:"finding_step"` // the finding happened after this many steps (-1: none)
	Internal    string      `json:"internal"`     // an error of xbtest
	// The rest of the timeline (see ReplayOutcome).
	Locks []LockSpan  `json:"locks,omitempty"`
	Waits []WaitSpan  `json:"waits,omitempty"`
	Marks []TraceMark `json:"marks,omitempty"`
	Final []Goroutine `json:"final,omitempty"`
}

// DecodeEvent reads one line of `xbtest -json` output into a
// *FindingEvent, *SummaryEvent, *PackageEvent, *TotalEvent or
// *ReplayEvent.
func DecodeEvent(line []byte) (any, error) {
	var probe struct {
		Event string `json:"event"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return nil, err
	}
	var v any
	switch probe.Event {
	case EventFinding:
		v = new(FindingEvent)
	case EventSummary:
		v = new(SummaryEvent)
	case EventPackage:
		v = new(PackageEvent)
	case EventTotal:
		v = new(TotalEvent)
	case EventReplay:
		v = new(ReplayEvent)
	default:
		return nil, fmt.Errorf("unknown xbtest event %q", probe.Event)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return nil, err
	}
	return v, nil
}
