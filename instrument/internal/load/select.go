package load

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"golang.org/x/tools/go/packages"
)

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

// Package is a package whose files are rewritten.
type Package struct {
	Path     string
	Pkg      *packages.Package // the variant whose type information rewrites the non-test files
	Loaded   *packages.Package // the variant of the load of the whole build (Pkg may be loaded again with its function bodies)
	Target   *Target           // set if the package is a target
	Dep      bool              // a dependency rewritten by default (not of a target's module, not named by Extra)
	Stripped bool              // its files were loaded without function bodies
}

// Dep is a package of another module than the targets' that Select
// selected, or would have selected (its code starts goroutines or
// synchronizes), or that Extra names.
type Dep struct {
	Path       string
	Uses       string // what its code does ("starts goroutines, synchronizes", "uses channels", "uses timers"); "" if only Extra selects it
	Goroutines bool   // it has go statements
	Extra      bool   // Extra names it
	Why        string // when Select leaves it alone, why: "cgo", "-instrument-deps=false", ...
}

// Select finds the packages to rewrite: those of the targets'
// modules that the tests import, those Extra matches, and (unless deps is
// false) every other package of the build whose code starts goroutines or
// synchronizes (see scanFile), except the standard library and the
// scheduler itself. It also lists, as Deps for the plan, the packages of
// other modules it selected or would have selected, with why a package is
// left alone (cgo, -instrument-deps=false).
func (res *Result) Select(deps bool, xb *build.XBTest, logf func(string, ...any)) ([]*Package, []*Dep, error) {
	targets, roots, extra, li := res.Targets, res.Roots, res.cfg.Extra, res.info
	mods := map[string]bool{}
	targetOf := map[string]*Target{}
	for _, t := range targets {
		m := t.Plain.Module
		if m == nil {
			return nil, nil, fmt.Errorf("instrument: package %s is not in a module", t.Path())
		}
		if xb.IsScheduler(t.Path()) {
			return nil, nil, fmt.Errorf("instrument: package %s is part of xbtest's scheduler and cannot be instrumented", t.Path())
		}
		mods[m.Path] = true
		targetOf[t.Path()] = t
	}
	em := newMatcher(extra)
	matched := make([]bool, len(extra))
	byPath := map[string]*Package{}
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
			rp = &Package{Path: p.PkgPath, Pkg: p, Target: targetOf[p.PkgPath], Dep: isDep}
			byPath[p.PkgPath] = rp
		} else if p.ID == p.PkgPath {
			rp.Pkg = p
		}
		rp.Loaded = rp.Pkg
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
	var list []*Package
	for _, rp := range byPath {
		rp.Stripped = li.strippedAny(rp.Pkg)
		if rp.Dep && initGo[rp.Path] {
			logf("instrument: not rewriting %s: goroutines that the program's initialization starts may run its code", rp.Path)
			depOf[rp.Path].Why = "goroutines that start when the program initializes may run its code"
			continue
		}
		if isCgo(rp.Pkg) {
			if rp.Target != nil {
				return nil, nil, fmt.Errorf("instrument: cgo package %s is not supported", rp.Path)
			}
			logf("instrument: not rewriting cgo package %s", rp.Path)
			if d := depOf[rp.Path]; d != nil {
				d.Why = "cgo"
			}
			continue
		}
		if rp.Dep && !rp.Stripped {
			// A dependency that does not compile is left alone: go test
			// reports the build failure as usual. (One loaded without
			// function bodies is checked when they are loaded.)
			if err := compileErrors(rp.Pkg); err != nil {
				logf("%v", err)
				_, detail, _ := strings.Cut(err.Error(), "\n")
				depOf[rp.Path].Why = "does not compile: " + firstLine(detail)
				continue
			}
		}
		list = append(list, rp)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	for _, t := range targets {
		for _, p := range []*packages.Package{t.Plain, t.Test, t.XTest} {
			if p != nil {
				if err := compileErrors(p); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	for _, rp := range list {
		if err := compileErrors(rp.Pkg); err != nil && !rp.Dep {
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
