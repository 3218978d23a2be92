// Package instrument rewrites Go packages so that every synchronization
// operation and every shared-memory access calls the controlled scheduler
// (package github.com/xbtest/xbtest/scheduler, imported as xb in rewritten
// files), and tells how to build their tests against it.
//
// The user's files are never modified: rewritten files go to a cache
// directory and are compiled with `go test -overlay`. Rewritten files carry
// line directives, so that compiler errors, panics and stack traces name
// the original file and line. Packages of another module get the scheduler
// through a temporary -modfile (a temporary go.work in workspace mode); see
// modfile.go.
//
// The files, by job: load.go (go/packages, what to rewrite), rewrite*.go
// (the rewrite of one file: goroutines, sync, channels, memory, loops,
// tests), escape.go (which locals are shared), edit.go and render.go (text
// edits and line directives), helpers.go (the generated helper file of each
// package), overlay.go, modfile.go, xbtest.go, modcache.go, vendor.go,
// workfile.go (how the build finds the result).
package instrument

import (
	"context"
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// Options says what to rewrite.
type Options struct {
	Dir      string                           // working directory the patterns are relative to (the user's module or a subdir)
	Patterns []string                         // package patterns as go test takes them (./..., ./pkg, import paths)
	Extra    []string                         // -instrument: additional package patterns (other modules' packages, e.g. golang.org/x/sync/errgroup) to rewrite
	Tags     []string                         // build tags (-tags)
	CacheDir string                           // where to write rewritten files; a fresh temp dir if empty
	Memory   string                           // memory model: "" or sc, tso, pso (selects the helpers, see helpers.go)
	Log      func(format string, args ...any) // verbose diagnostics, may be nil
}

// Package is a package matched by the patterns.
type Package struct {
	ImportPath string
	Dir        string
	Name       string
	HasTests   bool     // has Test functions (in _test.go files, internal or external test package)
	Tests      []string // names of the Test functions, in the order go test runs them
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
}

// Prepare loads the packages (with tests) with golang.org/x/tools/go/packages,
// rewrites the targets and the packages of the same module they import (plus
// Extra), and returns how to build them.
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
	env, err := goEnv(ctx, opt.Dir)
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

	targets, roots, err := load(ctx, opt, env, "")
	if err != nil {
		return nil, err
	}
	main, err := mainModule(ctx, env, roots)
	if err != nil {
		return nil, err
	}
	if main == nil && env.GOWORK != "" && env.GOWORK != "off" {
		main = targets[0].plain.Module // a directory of no module of the workspace
	}
	baseMod := ""
	if qs := missingTestDeps(targets, main); len(qs) > 0 && main.GoMod != "" &&
		(env.GOWORK == "" || env.GOWORK == "off") && !(&workspace{env: env}).vendorMode(main) {
		// Tests of another module's packages may import modules the main
		// module's go.sum (or go.mod) does not list: add them to a copy,
		// as go get -t would, and load again with it.
		if baseMod, err = getTestDeps(ctx, opt.Dir, filepath.Join(tmp, "load"), main, qs, logf); err != nil {
			return nil, err
		}
		if targets, roots, err = load(ctx, opt, env, baseMod); err != nil {
			return nil, err
		}
	}
	loaded := time.Now()
	xb, err := locateXBTest(ctx)
	if err != nil {
		return nil, err
	}
	pkgs, err := selectPackages(targets, roots, opt.Extra, xb, logf)
	if err != nil {
		return nil, err
	}
	plan = &Plan{Dir: opt.Dir, Cleanup: cleanup}

	ws := &workspace{tmp: tmp, cache: cache, env: env, xb: xb, logf: logf, overlay: map[string]string{}, baseMod: baseMod}
	if err := ws.copyModules(pkgs); err != nil {
		return nil, err
	}
	units := makeUnits(targets, pkgs)
	for _, u := range units {
		u.gen.buffered = opt.Memory == "tso" || opt.Memory == "pso"
	}
	for _, u := range units {
		if err := u.rewrite(ws); err != nil {
			return nil, err
		}
	}
	ms, err := ws.setupModule(ctx, main)
	if err != nil {
		return nil, err
	}
	overlay, err := ws.writeOverlay()
	if err != nil {
		return nil, err
	}
	plan.Overlay = overlay
	plan.ModFile = ms.modFile
	plan.Env = ms.env
	plan.BuildArgs = []string{"-overlay=" + overlay}
	if ms.modFile != "" {
		plan.BuildArgs = append(plan.BuildArgs, "-modfile="+ms.modFile)
	}
	plan.BuildArgs = append(plan.BuildArgs, ms.flags...)
	plan.BuildArgs = append(plan.BuildArgs, "-vet=off")
	if len(opt.Tags) > 0 {
		plan.BuildArgs = append(plan.BuildArgs, "-tags="+strings.Join(opt.Tags, ","))
	}
	for _, t := range targets {
		p := Package{ImportPath: t.path(), Dir: t.plain.Dir, Name: t.plain.Name}
		for _, u := range units {
			if u.target == t {
				p.Tests = append(p.Tests, u.tests...)
			}
		}
		p.HasTests = len(p.Tests) > 0
		plan.Packages = append(plan.Packages, p)
	}
	logf("instrument: rewrote %d files in %d packages in %v (loading %v)", ws.files, len(pkgs),
		time.Since(start).Round(time.Millisecond), loaded.Sub(start).Round(time.Millisecond))
	return plan, nil
}

// rwPkg is a package whose files are rewritten.
type rwPkg struct {
	path   string
	pkg    *packages.Package // the variant whose type information rewrites the non-test files
	target *target
	copied bool // its module was copied out of the module cache
}

// unit is a compilation unit to rewrite: a package's non-test files, the
// _test.go files of its internal test, or its external test package.
type unit struct {
	pkg       *packages.Package
	files     []string
	rp        *rwPkg
	target    *target // set for the test files of a target
	kind      string  // "", "test" or "xtest"
	gen       *genFile
	rewritten map[string]bool
	posIndex  *int
	tests     []string
	logf      func(string, ...any)
}

// makeUnits lists the compilation units to rewrite, internal tests before
// external ones as go test runs them.
func makeUnits(targets []*target, pkgs []*rwPkg) []*unit {
	rewritten := map[string]bool{}
	for _, p := range pkgs {
		rewritten[p.path] = true
	}
	for _, t := range targets {
		if t.xtest != nil {
			rewritten[t.xtest.PkgPath] = true
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
		for _, f := range p.pkg.CompiledGoFiles {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
		var nonTest *unit
		if len(files) > 0 {
			nonTest = &unit{pkg: p.pkg, files: files, rp: p, rewritten: rewritten, posIndex: counter(p.path)}
			units = append(units, nonTest)
		}
		t := p.target
		if t == nil {
			continue
		}
		if t.test != nil {
			var tf []string
			for _, f := range t.test.CompiledGoFiles {
				if strings.HasSuffix(f, "_test.go") {
					tf = append(tf, f)
				}
			}
			if len(tf) > 0 {
				units = append(units, &unit{pkg: t.test, files: tf, rp: p, target: t, kind: "test", rewritten: rewritten, posIndex: counter(p.path)})
			}
		}
		if t.xtest != nil {
			units = append(units, &unit{pkg: t.xtest, files: t.xtest.CompiledGoFiles, rp: p, target: t, kind: "xtest", rewritten: rewritten, posIndex: counter(t.xtest.PkgPath)})
		}
	}
	// Where the generic helpers go: the non-test unit of a package, else its
	// internal test unit; an external test package has its own.
	hasNonTest := map[string]bool{}
	for _, u := range units {
		if u.kind == "" {
			hasNonTest[u.rp.path] = true
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
		u.gen = newGenFile(u.pkg.Types, uniqueName(u.rp.pkg.Dir, name))
		u.gen.imports.rewritten = rewritten
		u.gen.unitTag = u.kind
		u.gen.generics = u.kind == "xtest" || u.kind == "" || !hasNonTest[u.rp.path]
		if v := moduleGo(u.pkg.Module); v != "" && versionLess(v, "1.18") {
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

// rewrite rewrites the unit's files and writes them, with its helper file.
func (u *unit) rewrite(ws *workspace) error {
	u.logf = ws.logf
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
		if err := ws.add(path, out); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("instrument: cannot rewrite package %s:\n%s", u.pkg.PkgPath, strings.Join(errs, "\n"))
	}
	if !u.gen.empty() {
		if err := ws.add(u.gen.path, u.gen.source()); err != nil {
			return err
		}
	}
	return nil
}
