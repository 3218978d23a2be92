package instrument

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"golang.org/x/tools/go/packages"
)

const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax |
	packages.NeedTypesInfo | packages.NeedModule

// target is a package matched by the patterns, with its test variants.
type target struct {
	plain *packages.Package // the package itself
	test  *packages.Package // the package with its _test.go files, or nil
	xtest *packages.Package // the external test package, or nil
}

func (t *target) path() string { return t.plain.PkgPath }

// load loads the patterns with their tests and finds the targets.
// With modFile, the go command reads that go.mod (and the go.sum beside it)
// instead of the main module's.
//
// Every file parsed outside the standard library is scanned (scanFile) for
// what decides whether a dependency is rewritten by default, before its
// function bodies are dropped; li records the scans and which files lost
// their bodies.
func load(ctx context.Context, opt Options, env *build.Env, modFile string, li *loadInfo) ([]*target, []*packages.Package, error) {
	// Packages that are never rewritten need only their declarations:
	// parse them without function bodies, which halves the time to
	// type-check. That is the standard library, and the module cache
	// unless a pattern may name a package there.
	var skipBodies []string
	if env.GOROOT != "" {
		skipBodies = append(skipBodies, filepath.Join(env.GOROOT, "src")+string(filepath.Separator))
	}
	relative := func(p string) bool {
		return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
	}
	if len(opt.Extra) == 0 && env.GOMODCACHE != "" && !slices.ContainsFunc(opt.Patterns, func(p string) bool { return !relative(p) }) {
		skipBodies = append(skipBodies, filepath.Clean(env.GOMODCACHE)+string(filepath.Separator))
	}
	cfg := &packages.Config{
		Context: ctx,
		Mode:    loadMode,
		Tests:   true,
		Dir:     opt.Dir,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			f, err := parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
			if f == nil {
				return f, err
			}
			std := strings.HasPrefix(filename, skipBodies[0])
			var use depUse
			var sum *fileSummary
			if !std {
				use, sum = scanFile(f), summarize(f)
			}
			strip := slices.ContainsFunc(skipBodies, func(dir string) bool { return strings.HasPrefix(filename, dir) })
			if strip {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok {
						fd.Body = nil
					}
				}
			}
			if !std {
				li.record(filename, use, sum, strip)
			}
			return f, err
		},
	}
	if len(opt.Tags) > 0 {
		cfg.BuildFlags = []string{"-tags=" + strings.Join(opt.Tags, ",")}
	}
	if modFile != "" {
		cfg.BuildFlags = append(cfg.BuildFlags, "-modfile="+modFile)
	}
	roots, err := packages.Load(cfg, opt.Patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("instrument: %v", err)
	}
	byID := map[string]*packages.Package{}
	for _, p := range roots {
		byID[p.ID] = p
	}
	var targets []*target
	for _, p := range roots {
		if p.ID != p.PkgPath || strings.HasSuffix(p.ID, ".test") && p.Name == "main" {
			continue
		}
		if err := listError(p); err != nil {
			return nil, nil, err
		}
		t := &target{plain: p}
		t.test = byID[p.PkgPath+" ["+p.PkgPath+".test]"]
		t.xtest = byID[p.PkgPath+"_test ["+p.PkgPath+".test]"]
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, nil, fmt.Errorf("instrument: no packages match %s", quotePatterns(opt.Patterns))
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].path() < targets[j].path() })
	return targets, roots, nil
}

// missingTestDeps returns, as queries for go get (path@version), the
// targets of modules other than main (dependencies of it, named by import
// path) whose tests did not load: their imports may need modules that the
// main module's go.mod or go.sum lacks, as `go test` of such a package
// reports ("missing go.sum entry ...; to add: go get -t path@version").
func missingTestDeps(targets []*target, main *packages.Module) []string {
	if main == nil {
		return nil
	}
	var qs []string
	for _, t := range targets {
		m := t.plain.Module
		if m == nil || m.Main || m.Path == main.Path || m.Version == "" || m.Replace != nil {
			continue
		}
		for _, p := range []*packages.Package{t.plain, t.test, t.xtest} {
			if p != nil && len(p.Errors) > 0 {
				qs = append(qs, t.path()+"@"+m.Version)
				break
			}
		}
	}
	return qs
}

func quotePatterns(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(q, " ")
}

// listError turns the errors of go list about a pattern (no such package,
// no Go files) into a message.
func listError(p *packages.Package) error {
	for _, e := range p.Errors {
		if e.Kind != packages.ListError {
			continue
		}
		msg := e.Msg
		switch {
		case strings.Contains(msg, "no Go files"), strings.Contains(msg, "cannot find"),
			strings.Contains(msg, "directory not found"), strings.Contains(msg, "no such file"),
			strings.Contains(msg, "is not in std"), strings.Contains(msg, "does not contain package"),
			strings.Contains(msg, "no required module provides"), strings.Contains(msg, "matched no packages"):
			return fmt.Errorf("instrument: no packages match %q: %s", p.PkgPath, firstLine(msg))
		case strings.Contains(msg, "no non-test Go files"):
			continue
		}
		return fmt.Errorf("instrument: %s: %s", p.PkgPath, firstLine(msg))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// compileErrors returns the type and syntax errors of p as a message with
// the original positions, or nil.
func compileErrors(p *packages.Package) error {
	var lines []string
	seen := map[string]bool{}
	for _, e := range p.Errors {
		if e.Kind == packages.ListError && strings.Contains(e.Msg, "no non-test Go files") {
			continue
		}
		l := e.Msg
		if e.Pos != "" && e.Pos != "-" {
			l = e.Pos + ": " + e.Msg
		}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("instrument: package %s does not compile:\n%s", p.PkgPath, strings.Join(lines, "\n"))
}

// isCgo reports whether the go command runs cgo on p: its compiled files
// are not its Go files.
func isCgo(p *packages.Package) bool {
	if len(p.CompiledGoFiles) != len(p.GoFiles) {
		return true
	}
	for i := range p.GoFiles {
		if p.GoFiles[i] != p.CompiledGoFiles[i] {
			return true
		}
	}
	for _, f := range p.Syntax {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"C"` {
				return true
			}
		}
	}
	return false
}

// matcher matches package paths against patterns with the go command's
// wildcard "...".
type matcher []*regexp.Regexp

func newMatcher(patterns []string) matcher {
	var m matcher
	for _, p := range patterns {
		re := regexp.QuoteMeta(p)
		re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
		if strings.HasSuffix(p, "/...") {
			// a/... matches a itself too.
			re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
		}
		m = append(m, regexp.MustCompile("^"+re+"$"))
	}
	return m
}

func (m matcher) match(path string) int {
	for i, re := range m {
		if re.MatchString(path) {
			return i
		}
	}
	return -1
}

// selectPackages finds the packages to rewrite: those of the targets'
// modules that the tests import, those Extra matches, and (unless deps is
// false) every other package of the build whose code starts goroutines or
// synchronizes (see scanFile), except the standard library and the
// scheduler itself. It also lists, as Deps for the plan, the packages of
// other modules it selected or would have selected, with why a package is
// left alone (cgo, -instrument-deps=false).
func selectPackages(targets []*target, roots []*packages.Package, extra []string, deps bool, xb *build.XBTest, li *loadInfo, logf func(string, ...any)) ([]*rwPkg, []*Dep, error) {
	mods := map[string]bool{}
	targetOf := map[string]*target{}
	for _, t := range targets {
		m := t.plain.Module
		if m == nil {
			return nil, nil, fmt.Errorf("instrument: package %s is not in a module", t.path())
		}
		if xb.IsScheduler(t.path()) {
			return nil, nil, fmt.Errorf("instrument: package %s is part of xbtest's scheduler and cannot be instrumented", t.path())
		}
		mods[m.Path] = true
		targetOf[t.path()] = t
	}
	em := newMatcher(extra)
	matched := make([]bool, len(extra))
	byPath := map[string]*rwPkg{}
	depOf := map[string]*Dep{}
	packages.Visit(roots, nil, func(p *packages.Package) {
		if p.Name == "main" && strings.HasSuffix(p.ID, ".test") {
			return
		}
		if base, ok := strings.CutSuffix(p.PkgPath, "_test"); ok && targetOf[base] != nil {
			return // an external test package: a unit of its target
		}
		if p.Module == nil || xb.IsScheduler(p.PkgPath) {
			return // the standard library, the scheduler
		}
		in := mods[p.Module.Path]
		isExtra := false
		if i := em.match(p.PkgPath); i >= 0 {
			matched[i] = true
			isExtra = true
		}
		var use depUse
		if !in {
			use = li.pkgUse(p)
			if use != 0 || isExtra {
				d := depOf[p.PkgPath]
				if d == nil {
					d = &Dep{Path: p.PkgPath}
					depOf[p.PkgPath] = d
				}
				d.Uses, d.Goroutines, d.Extra = use.String(), use&useGo != 0, isExtra
				if !deps && !isExtra {
					d.Why = "-instrument-deps=false"
				}
			}
		}
		isDep := !in && !isExtra && use != 0 && deps
		if !in && !isExtra && !isDep {
			return
		}
		rp := byPath[p.PkgPath]
		if rp == nil {
			rp = &rwPkg{path: p.PkgPath, pkg: p, target: targetOf[p.PkgPath], dep: isDep}
			byPath[p.PkgPath] = rp
		} else if p.ID == p.PkgPath {
			rp.pkg = p
		}
		rp.loaded = rp.pkg
	})
	for i, ok := range matched {
		if !ok {
			return nil, nil, fmt.Errorf("instrument: -instrument pattern %q matches no package the tests import", extra[i])
		}
	}
	var initGo map[string]bool
	if deps {
		initGo = initGoroutines(roots, li)
	}
	var list []*rwPkg
	for _, rp := range byPath {
		rp.stripped = li.strippedAny(rp.pkg)
		if rp.dep && initGo[rp.path] {
			logf("instrument: not rewriting %s: goroutines that the program's initialization starts may run its code", rp.path)
			depOf[rp.path].Why = "goroutines that start when the program initializes may run its code"
			continue
		}
		if isCgo(rp.pkg) {
			if rp.target != nil {
				return nil, nil, fmt.Errorf("instrument: cgo package %s is not supported", rp.path)
			}
			logf("instrument: not rewriting cgo package %s", rp.path)
			if d := depOf[rp.path]; d != nil {
				d.Why = "cgo"
			}
			continue
		}
		if rp.dep && !rp.stripped {
			// A dependency that does not compile is left alone: go test
			// reports the build failure as usual. (One loaded without
			// function bodies is checked when they are loaded.)
			if err := compileErrors(rp.pkg); err != nil {
				logf("%v", err)
				_, detail, _ := strings.Cut(err.Error(), "\n")
				depOf[rp.path].Why = "does not compile: " + firstLine(detail)
				continue
			}
		}
		list = append(list, rp)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].path < list[j].path })
	for _, t := range targets {
		for _, p := range []*packages.Package{t.plain, t.test, t.xtest} {
			if p != nil {
				if err := compileErrors(p); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	for _, rp := range list {
		if err := compileErrors(rp.pkg); err != nil && !rp.dep {
			return nil, nil, err
		}
	}
	var ds []*Dep
	for _, d := range depOf {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Path < ds[j].Path })
	return list, ds, nil
}
