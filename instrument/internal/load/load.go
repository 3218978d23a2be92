// Package load decides what package instrument rewrites: it loads the
// packages the patterns match, with their tests and the whole build of
// their tests (golang.org/x/tools/go/packages), and selects the packages
// to rewrite.
//
// Load type-checks the build once. Packages that are never rewritten need
// only their declarations: the standard library, and the module cache
// unless a pattern may name a package there, are parsed without function
// bodies, which halves the time to type-check. Every file parsed outside
// the standard library is scanned on the way (scan.go: goroutines,
// synchronization, channels, timers, testing; initgo.go: what each
// function refers to), before its bodies are dropped.
//
// Result.Select picks what to rewrite: the targets, the packages of their
// modules that the tests import, the packages Extra names, and (unless
// told not to) every package of another module whose code starts
// goroutines or synchronizes, except those whose code a goroutine that
// the program's initialization starts may run (initgo.go), cgo packages
// and dependencies that do not compile; it says why for each dependency
// it leaves alone (Dep). Bodies loads the selected packages that lost
// their function bodies again, each on its own.
//
// Errors begin with "instrument:": they are those of instrument.Prepare.
package load

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"golang.org/x/tools/go/packages"
)

const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax |
	packages.NeedTypesInfo | packages.NeedModule

// Config says what to load.
type Config struct {
	Dir      string   // the directory the patterns are relative to
	Patterns []string // package patterns as go test takes them
	Extra    []string // more patterns to rewrite (instrument.Options.Extra), not loaded as targets
	Tags     []string // build tags
	// ModFile, if set, is the go.mod the go command reads (with the
	// go.sum beside it) instead of the main module's.
	ModFile string
}

func (c Config) buildFlags() []string {
	var fl []string
	if len(c.Tags) > 0 {
		fl = []string{"-tags=" + strings.Join(c.Tags, ",")}
	}
	if c.ModFile != "" {
		fl = append(fl, "-modfile="+c.ModFile)
	}
	return fl
}

// Target is a package matched by the patterns, with its test variants.
type Target struct {
	Plain *packages.Package // the package itself
	Test  *packages.Package // the package with its _test.go files, or nil
	XTest *packages.Package // the external test package, or nil
}

// Path is the target's import path.
func (t *Target) Path() string { return t.Plain.PkgPath }

// Result is what Load loaded.
type Result struct {
	Targets []*Target           // sorted by import path
	Roots   []*packages.Package // the packages go/packages returned, with their imports the whole build
	cfg     Config
	info    *info
}

// Load loads the patterns with their tests and finds the targets.
//
// Every file parsed outside the standard library is scanned (scanFile) for
// what decides whether a dependency is rewritten by default, before its
// function bodies are dropped; the Result records the scans and which
// files lost their bodies.
func Load(ctx context.Context, cfg Config, env *build.Env) (*Result, error) {
	li := &info{}
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
	if len(cfg.Extra) == 0 && env.GOMODCACHE != "" && !slices.ContainsFunc(cfg.Patterns, func(p string) bool { return !relative(p) }) {
		skipBodies = append(skipBodies, filepath.Clean(env.GOMODCACHE)+string(filepath.Separator))
	}
	pcfg := &packages.Config{
		Context: ctx,
		Mode:    loadMode,
		Tests:   true,
		Dir:     cfg.Dir,
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
	pcfg.BuildFlags = cfg.buildFlags()
	roots, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	byID := map[string]*packages.Package{}
	for _, p := range roots {
		byID[p.ID] = p
	}
	var targets []*Target
	for _, p := range roots {
		if p.ID != p.PkgPath || strings.HasSuffix(p.ID, ".test") && p.Name == "main" {
			continue
		}
		if err := listError(p); err != nil {
			return nil, err
		}
		t := &Target{Plain: p}
		t.Test = byID[p.PkgPath+" ["+p.PkgPath+".test]"]
		t.XTest = byID[p.PkgPath+"_test ["+p.PkgPath+".test]"]
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("instrument: no packages match %s", quotePatterns(cfg.Patterns))
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].Path() < targets[j].Path() })
	return &Result{Targets: targets, Roots: roots, cfg: cfg, info: li}, nil
}

// MissingTestDeps returns, as queries for go get (path@version), the
// targets of modules other than main (dependencies of it, named by import
// path) whose tests did not load: their imports may need modules that the
// main module's go.mod or go.sum lacks, as `go test` of such a package
// reports ("missing go.sum entry ...; to add: go get -t path@version").
func MissingTestDeps(targets []*Target, main *packages.Module) []string {
	if main == nil {
		return nil
	}
	var qs []string
	for _, t := range targets {
		m := t.Plain.Module
		if m == nil || m.Main || m.Path == main.Path || m.Version == "" || m.Replace != nil {
			continue
		}
		for _, p := range []*packages.Package{t.Plain, t.Test, t.XTest} {
			if p != nil && len(p.Errors) > 0 {
				qs = append(qs, t.Path()+"@"+m.Version)
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
