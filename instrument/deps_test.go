package instrument

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"github.com/xbtest/xbtest/settings"
)

// TestDeps checks which dependencies are rewritten by default: those that
// start goroutines (pool, asmlib, whose assembly stays) or take a
// *testing.T (helper), not those that only compute (pure), never the
// standard library; cgo (cgolib) and what the rewriter cannot handle (odd)
// are left alone and named, and so is a dependency whose rewrite breaks a
// package that is not rewritten (locker, which cgolock hands a
// sync.Mutex), and one whose code runs on a goroutine its init starts
// (daemon). pool's goroutines run the test's code: its lost update is
// found.
func TestDeps(t *testing.T) {
	dir := testdata("deps")
	plan := prepare(t, Options{Dir: dir})
	deps := map[string]Dep{}
	for _, d := range plan.Deps {
		deps[d.Path] = d
		if first, _, _ := strings.Cut(d.Path, "/"); !strings.Contains(first, ".") {
			t.Errorf("a package of the standard library among the dependencies: %+v", d)
		}
	}
	for _, p := range []string{"example.com/pool", "example.com/asmlib", "example.com/helper"} {
		if d := deps[p]; !d.Rewritten || d.Why != "" {
			t.Errorf("%s: %+v, want it rewritten", p, d)
		}
	}
	if d := deps["example.com/pool"]; !d.Goroutines || !strings.Contains(d.Uses, "starts goroutines") || !strings.Contains(d.Uses, "synchronizes") {
		t.Errorf("pool: %+v", d)
	}
	if d := deps["example.com/cgolib"]; d.Rewritten || d.Why != "cgo" || !d.Goroutines {
		t.Errorf("cgolib: %+v, want it left alone as cgo", d)
	}
	if d := deps["example.com/odd"]; d.Rewritten || !strings.HasPrefix(d.Why, "cannot rewrite: odd.go:") || !d.Goroutines {
		t.Errorf("odd: %+v, want it left alone, unrewritable", d)
	}
	if d := deps["example.com/locker"]; d.Rewritten || !strings.HasPrefix(d.Why, "example.com/cgolock, which is not rewritten, does not compile with its rewrite: ") {
		t.Errorf("locker: %+v, want it left alone for cgolock", d)
	}
	if d := deps["example.com/cgolock"]; d.Rewritten || d.Why != "cgo" || d.Goroutines {
		t.Errorf("cgolock: %+v, want it left alone as cgo", d)
	}
	if d := deps["example.com/daemon"]; d.Rewritten || d.Why != "goroutines that start when the program initializes may run its code" || !d.Goroutines {
		t.Errorf("daemon: %+v, want it left alone for its goroutine started by init", d)
	}
	if d, ok := deps["example.com/pure"]; ok {
		t.Errorf("pure is a dependency to rewrite: %+v", d)
	}
	overlay := readOverlay(t, plan)
	for _, f := range []string{"pool/pool.go", "asmlib/asmlib.go", "helper/helper.go"} {
		if overlay[filepath.Join(dir, f)] == "" {
			t.Errorf("%s is not rewritten", f)
		}
	}
	for _, f := range []string{"pure/pure.go", "odd/odd.go", "cgolib/cgolib.go", "asmlib/add_amd64.s", "locker/locker.go", "cgolock/cgolock.go", "daemon/daemon.go"} {
		if overlay[filepath.Join(dir, f)] != "" {
			t.Errorf("%s is rewritten", f)
		}
	}
	reports, out := runPlan(t, plan)
	checkReports(t, reports, map[string][]string{"TestCount": {"race"}, "TestSum": nil}, out)

	t.Run("Off", func(t *testing.T) {
		plan := prepare(t, Options{Dir: dir, NoDeps: true, Patterns: []string{"./app"}})
		for _, d := range plan.Deps {
			if d.Rewritten || d.Why != "-instrument-deps=false" {
				t.Errorf("%+v, want it left alone", d)
			}
		}
		if len(plan.Deps) != 8 {
			t.Errorf("deps %+v, want the 8 that would be rewritten", plan.Deps)
		}
		for orig := range readOverlay(t, plan) {
			if !strings.HasPrefix(orig, filepath.Join(dir, "app")+string(filepath.Separator)) {
				t.Errorf("%s rewritten", orig)
			}
		}
	})
}

// TestDepsModuleCache: golang.org/x/sync/errgroup, of the module cache,
// is rewritten by default (its goroutines run the test's lock-order
// inversion), into the persistent cache, and taken from there by the next
// Prepare.
func TestDepsModuleCache(t *testing.T) {
	if _, err := os.Stat(filepath.Join(goEnvOf(t, "GOMODCACHE"), "golang.org", "x", "sync@v0.24.0", "errgroup")); err != nil {
		t.Skipf("golang.org/x/sync@v0.24.0 is not in the module cache: %v", err)
	}
	cache := t.TempDir()
	t0 := time.Now()
	plan := prepare(t, Options{Dir: testdata("extra"), DepCache: cache})
	first := time.Since(t0)
	errgroup := func(plan *Plan) Dep {
		for _, d := range plan.Deps {
			if d.Path == "golang.org/x/sync/errgroup" {
				return d
			}
		}
		return Dep{}
	}
	if d := errgroup(plan); !d.Rewritten || d.Cached || !d.Goroutines {
		t.Fatalf("errgroup: %+v, want it rewritten now", d)
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "golang.org_x_sync@v0.24.0-*"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	if !build.EntryOK(entries[0]) {
		t.Error("the entry is not marked as compiled")
	}
	mod, _ := os.ReadFile(plan.ModFile)
	if !strings.Contains(string(mod), "golang.org/x/sync => "+entries[0]) {
		t.Errorf("temporary go.mod does not use the entry:\n%s", mod)
	}
	reports, out := runPlan(t, plan)
	checkReports(t, reports, map[string][]string{
		"TestErrgroupLockOrder": {"lock-cycle"},
		"TestErrgroupFixed":     nil,
	}, out)

	t0 = time.Now()
	again := prepare(t, Options{Dir: testdata("extra"), DepCache: cache})
	t.Logf("Prepare: %v, then %v from the cache", first.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	if d := errgroup(again); !d.Rewritten || !d.Cached {
		t.Errorf("errgroup: %+v, want it from the cache", d)
	}
	mod, _ = os.ReadFile(again.ModFile)
	if !strings.Contains(string(mod), "golang.org/x/sync => "+entries[0]) {
		t.Errorf("temporary go.mod does not use the entry:\n%s", mod)
	}

	// Another memory model is another entry.
	prepare(t, Options{Dir: testdata("extra"), DepCache: cache, Memory: settings.TSO})
	if entries, _ := filepath.Glob(filepath.Join(cache, "golang.org_x_sync@v0.24.0-*")); len(entries) != 2 {
		t.Errorf("cache entries %v, want one more for tso", entries)
	}
}

// TestDepsCacheConcurrent: two runs that rewrite the same module into an
// empty cache at the same time both work, and leave one entry and no
// temporary directory.
func TestDepsCacheConcurrent(t *testing.T) {
	if !longSuite {
		t.Skip("long suite (go test -tags long)")
	}
	if _, err := os.Stat(filepath.Join(goEnvOf(t, "GOMODCACHE"), "golang.org", "x", "sync@v0.24.0", "errgroup")); err != nil {
		t.Skipf("golang.org/x/sync@v0.24.0 is not in the module cache: %v", err)
	}
	cache := t.TempDir()
	plans := make([]*Plan, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plans[i], errs[i] = Prepare(context.Background(), Options{Dir: testdata("extra"), Patterns: []string{"./..."}, CacheDir: cacheDir, DepCache: cache})
		}()
	}
	wg.Wait()
	for i, p := range plans {
		if errs[i] != nil {
			t.Fatalf("Prepare %d: %v", i, errs[i])
		}
		t.Cleanup(p.Cleanup)
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "golang.org_x_sync@v0.24.0-*"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v, want 1", entries)
	}
	for _, p := range plans {
		mod, _ := os.ReadFile(p.ModFile)
		if !strings.Contains(string(mod), "golang.org/x/sync => "+entries[0]) {
			t.Errorf("temporary go.mod does not use the entry:\n%s", mod)
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(cache, ".tmp-*")); len(tmps) > 0 {
		t.Errorf("temporary copies left: %v", tmps)
	}
	reports, out := runPlan(t, plans[1])
	checkReports(t, reports, map[string][]string{
		"TestErrgroupLockOrder": {"lock-cycle"},
		"TestErrgroupFixed":     nil,
	}, out)
}
