package xbtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// ErrInterrupted is returned when ctx was cancelled before a replay ended.
var ErrInterrupted = errors.New("interrupted")

// Replayed is what following a schedule file showed.
type Replayed struct {
	Schedule *replay.Schedule
	Package  string // the import path
	// BuildError is the compiler's output when the rewritten package does
	// not build.
	BuildError string
	// Test is the replayed test: its Result's Replay says whether the
	// schedule led to its finding again (Reproduced), or where the program
	// stopped following it (Diverged), step by step.
	Test *Test
}

// Replay follows the schedule in file once, exactly: it rewrites and builds
// the file's package as Run does and has the test binary follow the
// schedule instead of exploring. The package, the test, the build settings
// and the semantics come from the file (a replay means what the recording
// meant); of opt only Dir (where to look when the file's directory is
// gone), Settings.Limits and Log are used. The error is for a file that
// cannot be used, a package or test that no longer exists, or an
// interruption (ErrInterrupted); a replay that does not lead to the finding
// is a result, not an error.
func Replay(ctx context.Context, file string, opt Options) (*Replayed, error) {
	s, err := replay.Read(file)
	if err != nil {
		return nil, err
	}
	// The file's semantics, not the caller's (Read normalised them).
	opt.Settings.Semantics = s.Flags.Semantics
	opt.Packages, opt.Tags, opt.Instrument = []string{s.Package}, s.Flags.Tags, s.Flags.Instrument
	opt.Run = "^" + regexp.QuoteMeta(s.Test) + "$"
	opt.OutDir, opt.NoInstrumentDeps = "", false
	opt.Progress, opt.TestDone, opt.PackageDone = nil, nil, nil
	if st, err := os.Stat(s.Dir); err == nil && st.IsDir() {
		opt.Dir = s.Dir
	}
	r, err := newRunner(opt)
	if err != nil {
		return nil, err
	}
	plan, cleanup, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	b, _ := json.Marshal(result.ReplaySpec{Blocks: s.Decisions, Want: s.Finding.Want})
	r.replaySpec = filepath.Join(r.tmp, "replay.json")
	if err := os.WriteFile(r.replaySpec, b, 0o644); err != nil {
		return nil, err
	}
	if len(plan.Packages) != 1 {
		return nil, fmt.Errorf("%s: package %s not found in %s", file, s.Package, r.dir)
	}
	p := plan.Packages[0]
	out := &Replayed{Schedule: s, Package: p.ImportPath}
	run, err := r.runPackage(ctx, plan, p, func(*Test) {})
	if ctx.Err() != nil || run != nil && run.interrupted {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p.ImportPath, err)
	}
	if run.buildErr != "" {
		out.BuildError = run.buildErr
		return out, nil
	}
	for _, t := range run.results {
		if t.Name != s.Test {
			continue
		}
		if t.Result == nil {
			return nil, fmt.Errorf("%s: %s: %s\n%s", file, s.Test, t.Problem, t.Output)
		}
		if t.Result.Replay != nil {
			out.Test = t
		}
	}
	if out.Test == nil {
		return nil, fmt.Errorf("%s: test %s did not run in %s (renamed or removed?)", file, s.Test, p.ImportPath)
	}
	return out, nil
}
