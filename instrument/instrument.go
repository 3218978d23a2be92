// Package instrument rewrites Go packages so that every synchronization
// operation and every shared-memory access calls the controlled scheduler
// (package github.com/xbtest/xbtest/scheduler, imported as xb in rewritten
// files), and tells how to build their tests against it.
//
// The user's files are never modified: rewritten files go to a cache
// directory and are compiled with `go test -overlay`. Rewritten files carry
// line directives, so that compiler errors, panics and stack traces name
// the original file and line. Packages of another module get the scheduler
// through a temporary -modfile (a temporary go.work in workspace mode).
// How the go command builds the result (the overlay, the temporary go.mod
// or go.work, the copies of modules of the module cache, vendor/, the copy
// of the scheduler, the persistent cache of rewritten modules) is package
// internal/build; this package does the rewrite, and the packages below
// it the jobs around it:
//
//   - internal/load loads the packages with their tests (go/packages) and
//     selects what to rewrite: the targets, their modules' packages, and
//     the dependencies that start goroutines or synchronize;
//   - internal/edit edits source text, keeping lines with line directives;
//   - internal/typestr writes types as the generated helper files name them;
//   - internal/buildkey keys the whole build for the cache of test
//     binaries (BuildKey).
//
// The files, by job: instrument.go (Prepare: the attempts at rewriting
// everything selected, the plan), deps.go (whether the rewrite of the
// dependencies compiles, the rewriter's part of the persistent cache's
// key), rewrite*.go (the rewrite of one file: goroutines, sync, channels,
// memory, loops, tests), escape.go (which locals are shared), render.go
// (a rewritten file's imports and position table), helpers.go (the
// generated helper file of each package), foreign.go (under tso/pso, the
// drains of the store buffers before code that is not rewritten), racy.go
// (the //xbtest:racy directive), types.go (core types), rewritten.go (what
// the rewrite made of a line, for build errors), buildkey.go (BuildKey).
package instrument

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/ast"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"github.com/xbtest/xbtest/instrument/internal/load"
	"github.com/xbtest/xbtest/settings"
	"golang.org/x/tools/go/packages"
)

// Options says what to rewrite.
type Options struct {
	Dir      string                           // working directory the patterns are relative to (the user's module or a subdir)
	Patterns []string                         // package patterns as go test takes them (./..., ./pkg, import paths)
	Extra    []string                         // -instrument: additional package patterns (other modules' packages, e.g. golang.org/x/sync/errgroup) to rewrite
	Tags     []string                         // build tags (-tags)
	CacheDir string                           // where to write rewritten files; a fresh temp dir if empty
	Memory   settings.Memory                  // the memory model the tests will run under (selects the helpers, see helpers.go)
	Log      func(format string, args ...any) // verbose diagnostics, may be nil
	Step     func(step string)                // told each step as it starts ("loading packages", "rewriting 3 packages"), may be nil

	// NoDeps turns off the rewrite of the packages of other modules that
	// start goroutines or synchronize (-instrument-deps=false): only the
	// targets' modules and Extra are rewritten.
	NoDeps bool
	// DepCache is the directory of the persistent cache of rewritten
	// modules of the module cache (internal/build/depcache.go): "" for
	// $XBTEST_DEPCACHE if set, else os.UserCacheDir()/xbtest/deps; "off"
	// for none.
	DepCache string
}

// Package is a package matched by the patterns.
type Package struct {
	ImportPath string
	Dir        string
	Name       string
	HasTests   bool     // has Test functions (in _test.go files, internal or external test package)
	Tests      []string // names of the Test functions, in the order go test runs them
	// Examples counts the examples go test would run (those with an
	// output comment): xbtest explores tests only, and says so.
	Examples int
}

// Plan tells how to build the rewritten packages.
type Plan struct {
	Packages  []Package // the target packages (matched by Patterns), sorted by import path
	Overlay   string    // path of the overlay JSON for `go test -overlay`
	ModFile   string    // path of a temporary go.mod for `-modfile`, or "" if not needed
	BuildArgs []string  // arguments to add to `go test` (-overlay=..., -modfile=..., -vet=off, -tags=...)
	Env       []string  // extra environment for go test, may be empty
	Dir       string    // directory to run `go test` in
	Cleanup   func()    // removes every temporary file and directory the plan created

	// Deps are the packages of other modules in the build of the tests
	// that start goroutines or synchronize (or that Extra names), sorted by
	// import path, with what became of each: rewritten, or left alone and
	// why (then xbtest does not control what they do).
	Deps []Dep
}

// Dep is a package of another module than the targets' that the rewrite
// of dependencies selected (its code starts goroutines or synchronizes),
// or that Extra names.
type Dep struct {
	Path       string
	Uses       string // what its code does: "starts goroutines, synchronizes", "uses channels", "uses timers"; "" if only Extra selects it
	Goroutines bool   // it has go statements
	Extra      bool   // Extra names it
	Rewritten  bool
	Cached     bool   // its rewrite was taken from the persistent cache
	Why        string // when it is not rewritten, why: "cgo", "-instrument-deps=false", "cannot rewrite: ...", "does not compile rewritten: ..."
}

// Prepare loads the packages (with tests) with golang.org/x/tools/go/packages,
// rewrites the targets and the packages of the same module they import, the
// packages of other modules that start goroutines or synchronize (unless
// NoDeps; see deps.go), plus Extra, and returns how to build them.
//
// With a CacheDir, the rewritten files and the copy of the scheduler are
// kept there under names derived from their content, so that the go
// command's build cache recognizes them in the next run; the overlay and the
// temporary go.mod are the plan's own and Cleanup removes them.
func Prepare(ctx context.Context, opt Options) (plan *Plan, err error) {
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opt.Dir == "" {
		opt.Dir = "."
	}
	if opt.Dir, err = filepath.Abs(opt.Dir); err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	if len(opt.Patterns) == 0 {
		opt.Patterns = []string{"."}
	}
	start := time.Now()
	env, err := build.GoEnv(ctx, opt.Dir)
	if err != nil {
		return nil, err
	}
	if opt.CacheDir != "" {
		if err := os.MkdirAll(opt.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("instrument: %v", err)
		}
	}
	tmp, err := os.MkdirTemp(opt.CacheDir, "xbtest-plan-")
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	defer func() {
		if err != nil {
			cleanup()
			plan = nil
		}
	}()
	cache := opt.CacheDir
	if cache == "" {
		cache = tmp
	}

	step := opt.Step
	if step == nil {
		step = func(string) {}
	}
	step("loading packages")
	lcfg := load.Config{Dir: opt.Dir, Patterns: opt.Patterns, Extra: opt.Extra, Tags: opt.Tags}
	ld, err := load.Load(ctx, lcfg, env)
	if err != nil {
		return nil, err
	}
	main, err := build.MainModule(ctx, env, ld.Roots)
	if err != nil {
		return nil, err
	}
	if main == nil && env.GOWORK != "" && env.GOWORK != "off" {
		main = ld.Targets[0].Plain.Module // a directory of no module of the workspace
	}
	if qs := load.MissingTestDeps(ld.Targets, main); len(qs) > 0 && main.GoMod != "" &&
		(env.GOWORK == "" || env.GOWORK == "off") && !env.VendorMode(main) {
		// Tests of another module's packages may import modules the main
		// module's go.sum (or go.mod) does not list: add them to a copy,
		// as go get -t would, and load again with it.
		if lcfg.ModFile, err = build.GetTestDeps(ctx, opt.Dir, filepath.Join(tmp, "load"), main, qs, logf); err != nil {
			return nil, err
		}
		if ld, err = load.Load(ctx, lcfg, env); err != nil {
			return nil, err
		}
	}
	loaded := time.Now()
	xb, err := build.LocateXBTest(ctx)
	if err != nil {
		return nil, err
	}
	pkgs, deps, err := ld.Select(!opt.NoDeps, xb, logf)
	if err != nil {
		return nil, err
	}
	step(fmt.Sprintf("rewriting %d packages", len(pkgs)))
	pr := &prep{ctx: ctx, opt: opt, env: env, xb: xb, main: main, baseMod: lcfg.ModFile, tmp: tmp, cache: cache,
		targets: ld.Targets, pkgs: pkgs, roots: ld.Roots, logf: logf, dc: build.OpenDepCache(opt.DepCache, depCacheKey(opt), env, logf),
		bl: load.NewBodies(lcfg)}
	excluded := map[string]string{}
	var res *attemptResult
	for n := 0; ; n++ {
		var retry map[string]string
		if res, retry, err = pr.attempt(n, excluded); err != nil {
			return nil, err
		}
		if len(retry) == 0 {
			break
		}
		for p, why := range retry {
			logf("instrument: not rewriting %s: %s", p, why)
			excluded[p] = why
		}
		if n >= 3 {
			// Give up on every dependency not known to compile rewritten.
			for _, rp := range pkgs {
				if rp.Dep && excluded[rp.Path] == "" && !res.verified[rp.Path] {
					excluded[rp.Path] = "not rewritten after repeated failures of other dependencies"
				}
			}
		}
	}
	plan = res.plan
	plan.Cleanup = cleanup
	for _, ld := range deps {
		d := Dep{Path: ld.Path, Uses: ld.Uses, Goroutines: ld.Goroutines, Extra: ld.Extra, Why: ld.Why}
		switch {
		case res.rewritten[d.Path]:
			d.Rewritten, d.Cached = true, res.cached[d.Path]
		case excluded[d.Path] != "":
			d.Why = excluded[d.Path]
		}
		plan.Deps = append(plan.Deps, d)
	}
	depSummary(plan.Deps, logf)
	for _, t := range ld.Targets {
		p := Package{ImportPath: t.Path(), Dir: t.Plain.Dir, Name: t.Plain.Name}
		for _, u := range res.units {
			if u.target == t {
				p.Tests = append(p.Tests, u.tests...)
				p.Examples += u.examples
			}
		}
		p.HasTests = len(p.Tests) > 0
		plan.Packages = append(plan.Packages, p)
	}
	logf("instrument: rewrote %d files in %d packages (%d from the cache) in %v (loading %v)", res.files, len(res.rewritten)-len(res.cached),
		len(res.cached), time.Since(start).Round(time.Millisecond), loaded.Sub(start).Round(time.Millisecond))
	return plan, nil
}

// prep is what Prepare knows once it selected the packages to rewrite.
type prep struct {
	ctx        context.Context
	opt        Options
	env        *build.Env
	xb         *build.XBTest
	main       *packages.Module
	baseMod    string
	tmp, cache string
	targets    []*load.Target
	pkgs       []*load.Package
	roots      []*packages.Package
	dc         *build.DepCache
	bl         *load.Bodies
	logf       func(string, ...any)
}

// attemptResult is the outcome of an attempt that rewrote everything.
type attemptResult struct {
	plan      *Plan
	units     []*unit
	files     int
	rewritten map[string]bool // packages rewritten, by path
	cached    map[string]bool // those taken from the persistent cache
	verified  map[string]bool // dependencies known to compile rewritten
}

// modEntry is a module of the module cache with packages to rewrite.
type modEntry struct {
	mod       *packages.Module
	pkgs      []*load.Package
	hasTarget bool   // a target's test files are rewritten into the copy: it is not cached
	dir       string // its entry in the persistent cache, "" if it has none
	hit       bool   // the entry exists
	ok        bool   // and compiled
}

// attempt rewrites every selected package but the excluded dependencies
// and returns the plan, or the dependencies that it could not rewrite, or
// whose rewrite does not compile, with why: the next attempt leaves them
// alone.
func (pr *prep) attempt(n int, excluded map[string]string) (*attemptResult, map[string]string, error) {
	ctx, logf := pr.ctx, pr.logf
	tmp := pr.tmp
	if n > 0 {
		tmp = filepath.Join(pr.tmp, "retry"+strconv.Itoa(n))
	}
	res := &attemptResult{rewritten: map[string]bool{}, cached: map[string]bool{}, verified: map[string]bool{}}
	var active []*load.Package
	for _, rp := range pr.pkgs {
		if excluded[rp.Path] == "" {
			active = append(active, rp)
			res.rewritten[rp.Path] = true
		}
	}
	// The modules of the module cache, and their entries in the
	// persistent cache.
	byDir := map[string]*modEntry{}
	entryOf := map[*load.Package]*modEntry{}
	var mods []*modEntry
	for _, rp := range active {
		m := rp.Pkg.Module
		d := pr.env.ModCacheDir(m)
		if d == "" {
			continue
		}
		e := byDir[d]
		if e == nil {
			e = &modEntry{mod: m}
			byDir[d] = e
			mods = append(mods, e)
		}
		e.pkgs = append(e.pkgs, rp)
		e.hasTarget = e.hasTarget || rp.Target != nil
		entryOf[rp] = e
	}
	retry := map[string]string{}
	for _, e := range mods {
		if e.hasTarget {
			continue
		}
		var loaded []*packages.Package
		for _, rp := range e.pkgs {
			loaded = append(loaded, rp.Loaded)
		}
		if e.dir = pr.dc.EntryDir(e.mod, loaded, res.rewritten); e.dir == "" || !build.EntryExists(e.dir) {
			continue
		}
		e.hit = true
		e.ok = build.EntryOK(e.dir)
		for _, rp := range e.pkgs {
			if why := build.EntryBad(e.dir)[rp.Path]; why != "" && rp.Dep {
				retry[rp.Path] = why
			}
			res.cached[rp.Path] = true
			if e.ok {
				res.verified[rp.Path] = true
			}
		}
	}
	if len(retry) > 0 {
		return res, retry, nil
	}
	// Function bodies of the packages to rewrite that load stripped.
	var need []*load.Package
	var paths []string
	for _, rp := range active {
		if rp.Stripped && !res.cached[rp.Path] {
			need = append(need, rp)
			paths = append(paths, rp.Path)
		}
	}
	if len(need) > 0 {
		t0 := time.Now()
		failed := pr.bl.Load(ctx, paths)
		logf("instrument: loaded %d packages with their function bodies in %v", len(paths), time.Since(t0).Round(time.Millisecond))
		for _, rp := range need {
			if why := failed[rp.Path]; why != "" {
				if !rp.Dep {
					return nil, nil, fmt.Errorf("instrument: %s %s", rp.Path, why)
				}
				retry[rp.Path] = why
				continue
			}
			rp.Pkg = pr.bl.Package(rp.Path)
			rp.Stripped = false
		}
		if len(retry) > 0 {
			return res, retry, nil
		}
	}

	ws := build.NewWorkspace(build.Config{Tmp: tmp, Cache: pr.cache, DepCache: pr.dc, Env: pr.env, XBTest: pr.xb, BaseMod: pr.baseMod, Logf: logf})
	var copies []*build.Module
	for _, e := range mods {
		copies = append(copies, &build.Module{Mod: e.mod, Entry: e.dir, Hit: e.hit})
	}
	if err := ws.CopyModules(copies); err != nil {
		ws.DropUnpublished()
		return nil, nil, err
	}
	var units []*unit
	for _, u := range makeUnits(pr.targets, active) {
		if !res.cached[u.rp.Path] || u.target != nil {
			units = append(units, u)
		}
	}
	for _, u := range units {
		u.gen.buffered = pr.opt.Memory.Buffered()
	}
	out := &output{ws: ws, logf: logf}
	depSum := sha256.New() // the rewritten dependencies' files
	for _, u := range units {
		if u.rp.Dep {
			out.depSum = depSum
		}
		err := u.rewriteSafe(out)
		out.depSum = nil
		if err != nil {
			if !u.rp.Dep || u.target != nil {
				ws.DropUnpublished()
				return nil, nil, err
			}
			_, detail, _ := strings.Cut(err.Error(), "\n")
			if detail == "" {
				detail = err.Error()
			}
			retry[u.rp.Path] = "cannot rewrite: " + shortenPath(firstLine(detail))
		}
	}
	if len(retry) > 0 {
		ws.DropUnpublished()
		return res, retry, nil
	}
	if err := ws.PublishCopies(); err != nil {
		ws.DropUnpublished()
		return nil, nil, err
	}
	ms, err := ws.SetupModule(ctx, pr.main)
	if err != nil {
		return nil, nil, err
	}
	overlay, err := ws.WriteOverlay()
	if err != nil {
		return nil, nil, err
	}
	plan := &Plan{Dir: pr.opt.Dir, Overlay: overlay, ModFile: ms.ModFile, Env: ms.Env}
	plan.BuildArgs = []string{"-overlay=" + overlay}
	if ms.ModFile != "" {
		plan.BuildArgs = append(plan.BuildArgs, "-modfile="+ms.ModFile)
	}
	plan.BuildArgs = append(plan.BuildArgs, ms.Flags...)
	plan.BuildArgs = append(plan.BuildArgs, "-vet=off")
	if len(pr.opt.Tags) > 0 {
		plan.BuildArgs = append(plan.BuildArgs, "-tags="+strings.Join(pr.opt.Tags, ","))
	}
	res.plan, res.units, res.files = plan, units, out.files

	// Compile the dependencies rewritten now, or whose entry no build has
	// compiled yet, with the packages left alone that import them (a cgo
	// package that hands a sync.Mutex to one): a dependency whose rewrite
	// does not compile, or breaks such an importer, is left alone.
	var check []string
	depOf := map[string]*load.Package{}
	for _, rp := range active {
		if rp.Dep {
			depOf[rp.Path] = rp
			if !res.verified[rp.Path] {
				check = append(check, rp.Path)
			}
		}
	}
	if len(check) == 0 {
		return res, nil, nil
	}
	importers := map[string][]string{} // a package left alone -> the rewritten dependencies it imports
	packages.Visit(pr.roots, nil, func(p *packages.Package) {
		if p.Module == nil || res.rewritten[p.PkgPath] || pr.xb.IsScheduler(p.PkgPath) || p.ID != p.PkgPath {
			return
		}
		for path := range p.Imports {
			if depOf[path] != nil && !slices.Contains(importers[p.PkgPath], path) {
				importers[p.PkgPath] = append(importers[p.PkgPath], path)
			}
		}
	})
	toBuild := slices.Clone(check)
	for p := range importers {
		toBuild = append(toBuild, p)
	}
	sort.Strings(toBuild)
	// The same rewrite of the same packages compiled before: in a
	// later run with dependencies outside the module cache (vendored,
	// replaced by a directory, of the workspace), rewritten each run.
	var entries []string
	for _, e := range mods {
		entries = append(entries, e.dir)
	}
	sort.Strings(entries)
	verified := fmt.Sprintf("%x\x00%s\x00%s", depSum.Sum(nil), strings.Join(entries, "\x00"), strings.Join(toBuild, " "))
	if pr.dc.IsVerified(verified) {
		return res, nil, nil
	}
	t0 := time.Now()
	failed, built, err := checkDeps(ctx, plan, toBuild, logf)
	if err != nil {
		return nil, nil, err
	}
	logf("instrument: compiled %d rewritten dependencies (and %d packages that import them) in %v", len(check), len(importers),
		time.Since(t0).Round(time.Millisecond))
	bad := func(rp *load.Package, why string) {
		retry[rp.Path] = why
		if e := entryOf[rp]; e != nil && e.dir != "" {
			if err := build.AddBad(e.dir, map[string]string{rp.Path: why}); err != nil {
				logf("%v", err)
			}
		}
	}
	for path, msg := range failed {
		if rp := depOf[path]; rp != nil {
			bad(rp, "does not compile rewritten: "+msg)
		}
		for _, dep := range importers[path] {
			if retry[dep] == "" {
				bad(depOf[dep], fmt.Sprintf("%s, which is not rewritten, does not compile with its rewrite: %s", path, msg))
			}
		}
	}
	if len(retry) > 0 {
		return res, retry, nil
	}
	if built {
		for _, e := range mods {
			if e.dir != "" && !e.ok {
				if err := build.MarkOK(e.dir); err != nil {
					logf("%v", err)
				}
			}
		}
		for _, p := range check {
			res.verified[p] = true
		}
		if err := pr.dc.MarkVerified(verified); err != nil {
			logf("%v", err)
		}
	}
	return res, nil, nil
}

// unit is a compilation unit to rewrite: a package's non-test files, the
// _test.go files of its internal test, or its external test package.
type unit struct {
	pkg       *packages.Package
	files     []string
	rp        *load.Package
	target    *load.Target // set for the test files of a target
	kind      string       // "", "test" or "xtest"
	gen       *genFile
	rewritten map[string]bool
	posIndex  *int
	tests     []string
	examples  int // runnable examples dropped (Package.Examples)
	logf      func(string, ...any)

	unreported int // memory accesses of a dependency the rewrite does not report
}

// makeUnits lists the compilation units to rewrite, internal tests before
// external ones as go test runs them.
func makeUnits(targets []*load.Target, pkgs []*load.Package) []*unit {
	rewritten := map[string]bool{}
	for _, p := range pkgs {
		rewritten[p.Path] = true
	}
	for _, t := range targets {
		if t.XTest != nil {
			rewritten[t.XTest.PkgPath] = true
		}
	}
	counters := map[string]*int{}
	counter := func(path string) *int {
		if counters[path] == nil {
			counters[path] = new(int)
		}
		return counters[path]
	}
	var units []*unit
	for _, p := range pkgs {
		var files []string
		for _, f := range p.Pkg.CompiledGoFiles {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
		var nonTest *unit
		if len(files) > 0 {
			nonTest = &unit{pkg: p.Pkg, files: files, rp: p, rewritten: rewritten, posIndex: counter(p.Path)}
			units = append(units, nonTest)
		}
		t := p.Target
		if t == nil {
			continue
		}
		if t.Test != nil {
			var tf []string
			for _, f := range t.Test.CompiledGoFiles {
				if strings.HasSuffix(f, "_test.go") {
					tf = append(tf, f)
				}
			}
			if len(tf) > 0 {
				units = append(units, &unit{pkg: t.Test, files: tf, rp: p, target: t, kind: "test", rewritten: rewritten, posIndex: counter(p.Path)})
			}
		}
		if t.XTest != nil {
			units = append(units, &unit{pkg: t.XTest, files: t.XTest.CompiledGoFiles, rp: p, target: t, kind: "xtest", rewritten: rewritten, posIndex: counter(t.XTest.PkgPath)})
		}
	}
	// Where the generic helpers go: the non-test unit of a package, else its
	// internal test unit; an external test package has its own.
	hasNonTest := map[string]bool{}
	for _, u := range units {
		if u.kind == "" {
			hasNonTest[u.rp.Path] = true
		}
	}
	for _, u := range units {
		name := "xbtest_gen.go"
		switch u.kind {
		case "test":
			name = "xbtest_gen_test.go"
		case "xtest":
			name = "xbtest_genx_test.go"
		}
		u.gen = newGenFile(u.pkg.Types, uniqueName(u.rp.Pkg.Dir, name))
		u.gen.imports.Rewritten = rewritten
		u.gen.unitTag = u.kind
		u.gen.generics = u.kind == "xtest" || u.kind == "" || !hasNonTest[u.rp.Path]
		if v := build.ModuleGo(u.pkg.Module); v != "" && build.VersionLess(v, "1.18") {
			u.gen.needTag = true
		}
	}
	return units
}

// uniqueName returns dir/name, or a variant of it if a file of that name
// exists.
func uniqueName(dir, name string) string {
	base := strings.TrimSuffix(name, ".go")
	for i := 0; ; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s%d.go", base, i)
			if strings.HasSuffix(base, "_test") {
				n = fmt.Sprintf("%s%d_test.go", strings.TrimSuffix(base, "_test"), i)
			}
		}
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); os.IsNotExist(err) {
			return p
		}
	}
}

// output is where the units write their rewritten files: the workspace,
// with a count of the files and, while a dependency is rewritten, a hash
// of them.
type output struct {
	ws     *build.Workspace
	logf   func(string, ...any)
	files  int
	depSum hash.Hash // while a dependency is rewritten: hashes what add writes
}

// add writes the rewritten content of the file at orig into the workspace.
func (o *output) add(orig string, content []byte) error {
	o.files++
	if o.depSum != nil {
		fmt.Fprintf(o.depSum, "%s\x00%d\x00", orig, len(content))
		o.depSum.Write(content)
	}
	return o.ws.Add(orig, content)
}

// rewriteSafe is rewrite, with a panic of the rewriter turned into an
// error, so that a dependency the rewriter cannot handle is left alone.
func (u *unit) rewriteSafe(o *output) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("instrument: cannot rewrite package %s:\ninternal error: %v", u.pkg.PkgPath, e)
		}
	}()
	return u.rewrite(o)
}

// rewrite rewrites the unit's files and writes them, with its helper file.
func (u *unit) rewrite(o *output) error {
	u.logf = o.logf
	syntax := map[string]*ast.File{}
	for i, f := range u.pkg.CompiledGoFiles {
		if i < len(u.pkg.Syntax) {
			syntax[f] = u.pkg.Syntax[i]
		}
	}
	var errs []string
	for _, path := range u.files {
		f := syntax[path]
		if f == nil {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("instrument: %v", err)
		}
		r := newFileRW(u, f, path, src, *u.posIndex)
		*u.posIndex++
		r.run()
		for _, e := range r.errs {
			errs = append(errs, e.Error())
		}
		if len(r.errs) > 0 {
			continue
		}
		out, err := r.finish()
		if err != nil {
			return fmt.Errorf("instrument: internal error: %v", err)
		}
		if err := o.add(path, out); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("instrument: cannot rewrite package %s:\n%s", u.pkg.PkgPath, strings.Join(errs, "\n"))
	}
	if u.unreported > 0 {
		u.logf("instrument: %s: not reporting %d memory accesses (of types the rewritten code cannot name)", u.pkg.PkgPath, u.unreported)
	}
	if !u.gen.empty() {
		if err := o.add(u.gen.path, u.gen.source()); err != nil {
			return err
		}
	}
	return nil
}
