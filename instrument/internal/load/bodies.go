package load

import (
	"context"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Bodies loads packages whose files Load stripped of their function bodies
// again, with bodies, each on its own: their imports come from export data,
// which is much cheaper than type-checking the whole build from source
// again. It remembers what it loaded, and what it could not.
type Bodies struct {
	cfg    Config
	loaded map[string]*packages.Package
	failed map[string]string
}

// NewBodies returns a Bodies that loads as Load does with cfg.
func NewBodies(cfg Config) *Bodies { return &Bodies{cfg: cfg} }

// Package is the package of path loaded with its function bodies, or nil.
func (bl *Bodies) Package(path string) *packages.Package { return bl.loaded[path] }

// Load loads those of paths not loaded yet; it returns why a package could
// not be loaded, by path.
func (bl *Bodies) Load(ctx context.Context, paths []string) map[string]string {
	if bl.loaded == nil {
		bl.loaded, bl.failed = map[string]*packages.Package{}, map[string]string{}
	}
	var need []string
	for _, p := range paths {
		if bl.loaded[p] == nil && bl.failed[p] == "" {
			need = append(need, p)
		}
	}
	if len(need) > 0 {
		cfg := &packages.Config{
			Context: ctx,
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
				packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
			Dir: bl.cfg.Dir,
		}
		cfg.BuildFlags = bl.cfg.buildFlags()
		pkgs, err := packages.Load(cfg, need...)
		for _, p := range pkgs {
			if e := compileErrors(p); e != nil {
				_, detail, _ := strings.Cut(e.Error(), "\n")
				bl.failed[p.PkgPath] = "does not load: " + firstLine(detail)
				continue
			}
			bl.loaded[p.PkgPath] = p
		}
		for _, p := range need {
			if bl.loaded[p] == nil && bl.failed[p] == "" {
				why := "does not load"
				if err != nil {
					why += ": " + firstLine(err.Error())
				}
				bl.failed[p] = why
			}
		}
	}
	out := map[string]string{}
	for _, p := range paths {
		if why := bl.failed[p]; why != "" {
			out[p] = why
		}
	}
	return out
}
