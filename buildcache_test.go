package xbtest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/settings"
)

// A second run of an unchanged package takes its test binary from the
// build cache (a fresh one: nothing is shared with other tests or runs)
// without loading or rewriting anything, and explores as the first did; a
// corrupted entry is rebuilt and stored again. What invalidates an entry
// is instrument's TestBuildKey.
func TestBuildCacheReusesTheTestBinary(t *testing.T) {
	cache := t.TempDir()
	run := func() (*xbtest.Package, string) {
		t.Helper()
		var mu sync.Mutex
		var steps []string
		res, err := xbtest.Run(context.Background(), xbtest.Options{
			Packages:   []string{"./corpus/thesis/deadlock"},
			Run:        "^TestDeadlockFixed$",
			Settings:   settings.Default(),
			BuildCache: cache,
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
		if len(res.Packages) != 1 || len(res.Packages[0].Tests) != 1 || res.Packages[0].Tests[0].Result == nil {
			t.Fatalf("want one package with one explored test: %+v", res.Packages)
		}
		mu.Lock()
		defer mu.Unlock()
		return res.Packages[0], strings.Join(steps, "; ")
	}
	schedules := func(p *xbtest.Package) int { return p.Tests[0].Result.Schedules }

	first, steps := run()
	if first.CachedBuild || !strings.Contains(steps, "loading packages") {
		t.Errorf("first run: cached %v, steps %q", first.CachedBuild, steps)
	}
	second, steps := run()
	if !second.CachedBuild || steps != "checking the build cache; cached build of github.com/xbtest/xbtest/corpus/thesis/deadlock" {
		t.Errorf("second run: cached %v, steps %q; want the binary from the cache, nothing loaded", second.CachedBuild, steps)
	}
	if schedules(second) != schedules(first) {
		t.Errorf("second run: %d schedules, first %d", schedules(second), schedules(first))
	}

	bins, _ := filepath.Glob(filepath.Join(cache, "bin-*", "test"))
	if len(bins) != 1 {
		t.Fatalf("cache entries %v, want one test binary", bins)
	}
	if err := os.WriteFile(bins[0], []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	third, steps := run()
	if third.CachedBuild || !strings.Contains(steps, "building github.com/xbtest/xbtest/corpus/thesis/deadlock") || schedules(third) != schedules(first) {
		t.Errorf("after corrupting the entry: cached %v, steps %q, %d schedules (want a rebuild, %d)", third.CachedBuild, steps, schedules(third), schedules(first))
	}
	if fourth, _ := run(); !fourth.CachedBuild {
		t.Errorf("the rebuilt binary was not stored")
	}
}
