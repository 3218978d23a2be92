package xbtest_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/settings"
)

// What stops the whole run is an error, before anything is rewritten or
// built: a bad -run, a bad setting, an OutDir that cannot be written.
func TestRunRefusesBadOptionsUpFront(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := settings.Default()
	bad.MaxSteps = -1
	for _, c := range []struct {
		name string
		opt  xbtest.Options
		want string
	}{
		{"run", xbtest.Options{Run: "[", Settings: settings.Default()}, "invalid -run"},
		{"settings", xbtest.Options{Settings: bad}, "bounds must not be negative"},
		{"outdir", xbtest.Options{OutDir: filepath.Join(file, "out"), Settings: settings.Default()}, "cannot write schedule files there"},
	} {
		res, err := xbtest.Run(context.Background(), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
			t.Errorf("%s: %v, %v; want an error saying %q", c.name, res, err, c.want)
		}
	}
}

// A schedule file that cannot be read is an error of Replay.
func TestReplayRefusesABadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(`{"version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := xbtest.Replay(context.Background(), file, xbtest.Options{Settings: settings.Default()}); err == nil || !strings.Contains(err.Error(), "incomplete schedule file") {
		t.Errorf("%+v, %v", r, err)
	}
}

// Run says which build step it is at, so that a cold build is not silent.
func TestRunSaysItsBuildSteps(t *testing.T) {
	var mu sync.Mutex
	var steps []string
	_, err := xbtest.Run(context.Background(), xbtest.Options{
		Packages: []string{"./corpus/thesis/deadlock"},
		Run:      "^TestDeadlockFixed$",
		Settings: settings.Default(),
		Status: func(s xbtest.Status) {
			mu.Lock()
			defer mu.Unlock()
			if s.Step != "" {
				steps = append(steps, s.Step)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(steps, "; ")
	if !regexp.MustCompile(`^loading packages; rewriting \d+ packages; building github.com/xbtest/xbtest/corpus/thesis/deadlock$`).MatchString(got) {
		t.Errorf("steps %q", got)
	}
}
