package xbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/buildcache"
)

// How a run uses the build cache (Options.BuildCache, package
// internal/buildcache).
//
// Before rewriting anything, a run computes the build key of its
// packages (instrument.BuildKey: a go list, no type checking, and a hash of
// every file the build reads). The cache holds, per key, what Prepare told
// about the packages (their tests, the dependencies left alone), and per
// key and package the test binary. If the first is there, the run skips
// Prepare, and each package whose binary is there skips its build (its
// Package.CachedBuild is set); the first package whose binary is missing
// has Prepare run after all, and its binary is built and kept. The key
// covers the whole run (every package the patterns match and all they
// import), because the rewrite of one package depends on which others are
// rewritten: an edit anywhere in the run rebuilds every binary, as a run
// without the cache does, with go's build cache doing what it can.

// runCache is a run's state of the build cache.
type runCache struct {
	mu     sync.Mutex // packages are built at once (-p): guards what follows c
	c      *buildcache.Cache
	key    string
	opt    instrument.Options
	lazy   bool            // the plan came from the cache: Prepare has not run
	hits   map[string]bool // packages whose binary came from the cache
	stored bool            // the run's entry was stored (or found)
}

// runMeta is what a run's entry keeps of its plan.
type runMeta struct {
	Packages []instrument.Package
	Deps     []instrument.Dep
}

// openBuildCache computes the run's key and opens the cache; nil when the
// run has none or its packages cannot be keyed (then they are built as
// without a cache, and the build says what is wrong).
func (r *runner) openBuildCache(ctx context.Context, opt instrument.Options) *runCache {
	if r.opt.BuildCache == "" {
		return nil
	}
	c, err := buildcache.Open(r.opt.BuildCache, r.opt.BuildCacheMax)
	if err != nil {
		r.warn(err.Error())
		return nil
	}
	r.status(Status{Step: "checking the build cache"})
	start := time.Now()
	key, err := instrument.BuildKey(ctx, opt)
	if err != nil {
		r.log.Debug("build cache: not used", zap.Error(err))
		return nil
	}
	r.log.Debug("build cache", zap.String("key", key), zap.String("dir", c.Dir()), zap.Duration("keyed in", time.Since(start)))
	return &runCache{c: c, key: key, opt: opt, hits: map[string]bool{}}
}

// cachedPlan returns the plan of the run's entry, nil if there is none.
// Its packages have no build arguments: buildTestBinary runs Prepare when
// it needs them.
func (rc *runCache) cachedPlan(r *runner) *instrument.Plan {
	data, _, err := rc.c.Get("run-"+rc.key, r.tmp)
	if err != nil {
		return nil
	}
	var m runMeta
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	r.log.Debug("build cache: the rewrite's plan", zap.String("key", rc.key), zap.String("cache", rc.c.Dir()))
	rc.lazy, rc.stored = true, true
	return &instrument.Plan{Packages: m.Packages, Deps: m.Deps, Dir: r.dir, Cleanup: func() {}}
}

// storePlan keeps what Prepare made of the run's packages.
func (rc *runCache) storePlan(r *runner, plan *instrument.Plan) {
	if rc == nil || rc.stored {
		return
	}
	rc.stored = true
	data, err := json.Marshal(runMeta{Packages: plan.Packages, Deps: plan.Deps})
	if err == nil {
		err = rc.c.Put("run-"+rc.key, data, nil)
	}
	if err != nil {
		r.warn(err.Error())
	}
}

func (rc *runCache) binKey(importPath string) string {
	sum := sha256.Sum256([]byte(rc.key + "\x00" + importPath))
	return "bin-" + hex.EncodeToString(sum[:20])
}

// cachedBinary returns p's test binary from the cache, linked into the
// run's directory.
func (rc *runCache) cachedBinary(r *runner, p instrument.Package) (string, bool) {
	if rc == nil {
		return "", false
	}
	// A directory of the package's own: the entry's file is named "test"
	// whatever the package, and packages are fetched at once (-p).
	dst := filepath.Join(r.tmp, "bin", sanitize(p.ImportPath)+".cached")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", false
	}
	_, files, err := rc.c.Get(rc.binKey(p.ImportPath), dst)
	if err != nil {
		return "", false
	}
	bin, ok := files["test"]
	if !ok {
		return "", false
	}
	final := filepath.Join(r.tmp, "bin", sanitize(p.ImportPath)+".test")
	if err := os.Rename(bin, final); err != nil {
		return "", false
	}
	rc.mu.Lock()
	rc.hits[p.ImportPath] = true
	rc.mu.Unlock()
	r.log.Debug("build cache: test binary", zap.String("package", p.ImportPath))
	return final, true
}

// realize runs Prepare for a plan that came from the cache, when a
// package's binary is not there after all.
func (rc *runCache) realize(ctx context.Context, r *runner, plan *instrument.Plan) error {
	if rc == nil {
		return nil
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.lazy {
		return nil
	}
	real, err := instrument.Prepare(ctx, rc.opt)
	if err != nil {
		return err
	}
	rc.lazy = false
	*plan = *real
	return nil
}

// hit reports whether p's test binary came from the cache.
func (rc *runCache) hit(importPath string) bool {
	if rc == nil {
		return false
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.hits[importPath]
}

// storeBinary keeps p's test binary.
func (rc *runCache) storeBinary(r *runner, p instrument.Package, bin string) {
	if rc == nil {
		return
	}
	if err := rc.c.Put(rc.binKey(p.ImportPath), nil, map[string]string{"test": bin}); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.warn(err.Error())
	}
}
