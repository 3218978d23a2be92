package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The temporary go.mod (SetupModule): a copy of the main module's go.mod
// and go.sum that requires the scheduler's copy (stripped, xbtest.go) and
// replaces the modules copied out of the module cache (CopyModules) and,
// in vendor mode, the vendored modules (vendor.go) by their directories;
// a temporary go.work in workspace mode (setupWorkspace, below).

const (
	xbModule        = "github.com/xbtest/xbtest"
	xbPseudoVersion = "v0.0.0-00010101000000-000000000000"
)

// Env is what the go command says of its environment (go env) that the
// load, the rewrite and the build depend on.
type Env struct {
	GOMODCACHE string
	GOROOT     string // the go command's, whose src the loader parses without bodies
	GOFLAGS    string
	GOWORK     string
	GOMOD      string // the main module's go.mod, where go test runs ("" or os.DevNull outside a module)

	// What else the build depends on (the keys of the cache of rewritten
	// modules, depcache.go).
	GOVERSION, GOOS, GOARCH, CGO_ENABLED, GOEXPERIMENT string
}

// GoEnv runs go env in dir.
func GoEnv(ctx context.Context, dir string) (*Env, error) {
	out, err := RunGo(ctx, dir, "env", "-json", "GOMODCACHE", "GOROOT", "GOFLAGS", "GOWORK", "GOMOD",
		"GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT")
	if err != nil {
		return nil, err
	}
	var e Env
	if err := json.Unmarshal(out, &e); err != nil {
		return nil, fmt.Errorf("instrument: go env: %v", err)
	}
	return &e, nil
}

// RunGo runs the go command in dir and returns its standard output.
func RunGo(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("instrument: go %s: %v\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// MainModule returns the module go test runs in: the one whose go.mod `go
// env GOMOD` names in the working directory, from the loaded packages
// (roots and their imports) if one of them belongs to it. The targets may belong to
// another module (a dependency named by its import path, whose module is
// copied out of the module cache): the temporary go.mod is always based on
// the main module's. It is nil outside a module.
func MainModule(ctx context.Context, env *Env, roots []*packages.Package) (*packages.Module, error) {
	gomod := env.GOMOD
	if gomod == "" || gomod == os.DevNull {
		return nil, nil
	}
	var main *packages.Module
	packages.Visit(roots, nil, func(p *packages.Package) {
		if m := p.Module; main == nil && m != nil && m.Main && m.GoMod != "" && filepath.Clean(m.GoMod) == filepath.Clean(gomod) {
			main = m
		}
	})
	if main != nil {
		return main, nil
	}
	out, err := RunGo(ctx, filepath.Dir(gomod), "mod", "edit", "-json", gomod)
	if err != nil {
		return nil, err
	}
	var mf struct {
		Module struct{ Path string }
		Go     string
	}
	if err := json.Unmarshal(out, &mf); err != nil {
		return nil, fmt.Errorf("instrument: go mod edit: %v", err)
	}
	return &packages.Module{Path: mf.Module.Path, Main: true, Dir: filepath.Dir(gomod), GoMod: gomod, GoVersion: mf.Go}, nil
}

// GetTestDeps writes a copy of main's go.mod and go.sum into dir, runs
// `go get -t` of the queries (path@version) on it in runDir (the go
// command downloads what it needs through its proxy, as for go test), and
// returns the copy's path: it is loaded with -modfile and is the base of
// the temporary go.mod (Config.BaseMod). The user's files do not change.
// When go get fails, it returns "": the original go.mod is kept and the
// load's errors say what is missing.
func GetTestDeps(ctx context.Context, runDir, dir string, main *packages.Module, queries []string, logf func(string, ...any)) (string, error) {
	gomod, err := os.ReadFile(main.GoMod)
	if err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	sum, err := os.ReadFile(strings.TrimSuffix(main.GoMod, ".mod") + ".sum")
	if err != nil && !os.IsNotExist(err) {
		return "", fmt.Errorf("instrument: %v", err)
	}
	modFile := filepath.Join(dir, "go.mod")
	if err := writeFile(modFile, gomod); err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(dir, "go.sum"), sum); err != nil {
		return "", err
	}
	args := append([]string{"get", "-modfile=" + modFile, "-t"}, queries...)
	if _, err := RunGo(ctx, runDir, args...); err != nil {
		logf("instrument: adding the test dependencies of %s: %v", strings.Join(queries, " "), err)
		return "", nil
	}
	logf("instrument: added the test dependencies of %s to a copy of %s", strings.Join(queries, " "), main.GoMod)
	return modFile, nil
}

// ModSetup is how the build finds the scheduler and the copied modules:
// what to add to the go command's flags and environment.
type ModSetup struct {
	ModFile string   // the temporary go.mod, for -modfile, or ""
	Flags   []string // other go command flags (-mod=mod in vendor mode)
	Env     []string // environment (GOWORK=the temporary go.work in workspace mode)
}

// SetupModule writes what makes the build of the main module find the
// scheduler's copy and the modules copied out of the module cache: a
// temporary go.mod (-modfile), or a temporary go.work in workspace mode.
// Nothing is needed in xbtest's own module when no module is copied.
func (ws *Workspace) SetupModule(ctx context.Context, main *packages.Module) (*ModSetup, error) {
	needXB := main == nil || main.Path != xbModule
	if !needXB && len(ws.copies) == 0 {
		return &ModSetup{}, nil
	}
	if main == nil || main.GoMod == "" {
		return nil, fmt.Errorf("instrument: the packages are not in a module")
	}
	if w := ws.env.GOWORK; w != "" && w != "off" {
		return ws.setupWorkspace(ctx, w, needXB)
	}
	dir := filepath.Join(ws.tmp, "mod")
	var vmods []vendored
	ms := &ModSetup{}
	if ws.env.VendorMode(main) {
		// In vendor mode go.mod must agree with vendor/modules.txt, which
		// cannot list the scheduler (and the scheduler's assembly cannot be
		// added to vendor/ by an overlay: the assembler runs in the package
		// directory). Build in module mode instead, each vendored module
		// replaced by its directory under vendor/, which the overlay gives a
		// go.mod.
		var err error
		if vmods, err = vendoredModules(main.Dir); err != nil {
			return nil, err
		}
		for _, m := range vmods {
			gomod := "module " + m.path + "\n"
			if m.goVersion != "" {
				gomod += "\ngo " + m.goVersion + "\n"
			}
			mdir := filepath.Join(main.Dir, "vendor", filepath.FromSlash(m.path))
			if _, err := os.Stat(filepath.Join(mdir, "go.mod")); err == nil {
				continue
			}
			p := filepath.Join(dir, "vendor", strings.ReplaceAll(m.path, "/", "_")+".mod")
			if err := writeFile(p, []byte(gomod)); err != nil {
				return nil, err
			}
			ws.overlay[filepath.Join(mdir, "go.mod")] = p
		}
		ms.Flags = []string{"-mod=mod"}
	}
	base := main.GoMod
	if ws.baseMod != "" {
		base = ws.baseMod // with the test dependencies of other modules' targets
	}
	gomod, err := os.ReadFile(base)
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	modFile := filepath.Join(dir, "go.mod")
	if err := writeFile(modFile, gomod); err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(base, ".mod") + ".sum")
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	if needXB {
		// Checksums of the scheduler's own dependencies, if it has any.
		if xs, err := os.ReadFile(filepath.Join(ws.xb.root, "go.sum")); err == nil {
			sum = append(sum, xs...)
		}
	}
	if err := writeFile(filepath.Join(dir, "go.sum"), sum); err != nil {
		return nil, err
	}
	args := []string{"mod", "edit"}
	if needXB {
		st, err := ws.xb.stripped(ModuleGo(main), ws.cache, ws.persist)
		if err != nil {
			return nil, err
		}
		args = append(args, "-require="+xbModule+"@"+xbPseudoVersion, "-replace="+xbModule+"="+st)
	}
	for _, m := range vmods {
		if m.dropReplace != "" {
			args = append(args, "-dropreplace="+m.dropReplace)
		}
		args = append(args, "-replace="+m.path+"="+filepath.Join(main.Dir, "vendor", filepath.FromSlash(m.path)))
	}
	if len(ws.copies) > 0 {
		// Replacements of a copied module's specific versions would win over
		// ours: drop them.
		out, err := RunGo(ctx, dir, "mod", "edit", "-json", modFile)
		if err != nil {
			return nil, err
		}
		var mf struct {
			Replace []struct {
				Old struct{ Path, Version string }
			}
		}
		if err := json.Unmarshal(out, &mf); err != nil {
			return nil, fmt.Errorf("instrument: go mod edit: %v", err)
		}
		for _, c := range ws.copies {
			for _, r := range mf.Replace {
				if r.Old.Path == c.path {
					old := r.Old.Path
					if r.Old.Version != "" {
						old += "@" + r.Old.Version
					}
					args = append(args, "-dropreplace="+old)
				}
			}
			args = append(args, "-replace="+c.path+"="+c.to)
		}
		if len(ms.Flags) == 0 {
			// A module replaced by a directory has its requirements
			// loaded in full, where the module cache's copy let the go
			// command prune them: the graph may now need go.mod files
			// (a dependency's dependency's) that the user's go.sum never
			// listed. The go.sum here is ours, a copy: let the go
			// command add their checksums, as go mod download would.
			ms.Flags = []string{"-mod=mod"}
		}
	}
	args = append(args, modFile)
	if _, err := RunGo(ctx, dir, args...); err != nil {
		return nil, err
	}
	ms.ModFile = modFile
	return ms, nil
}

// ModuleGo returns the Go version of module m's go line, 1.16 if it has
// none (as the go command assumes, for a module without go.mod too), ""
// outside a module.
func ModuleGo(m *packages.Module) string {
	switch {
	case m == nil:
		return ""
	case m.GoVersion == "":
		return "1.16"
	}
	return m.GoVersion
}

// modDir is the directory of a module's files.
func modDir(m *packages.Module) string {
	if m.Replace != nil && m.Replace.Dir != "" {
		return m.Replace.Dir
	}
	return m.Dir
}

// ModCacheDir returns the directory of module m's files if it is in the
// module cache (the go command does not overlay those: see Module), else "".
func (env *Env) ModCacheDir(m *packages.Module) string {
	if m == nil || m.Main || env.GOMODCACHE == "" {
		return ""
	}
	d := modDir(m)
	if _, ok := within(env.GOMODCACHE, d); !ok || d == "" {
		return ""
	}
	return d
}

// modID names a module's version: path@version, or what replaces it.
func modID(m *packages.Module) string {
	id := m.Path + "@" + m.Version
	if r := m.Replace; r != nil {
		id += "=>" + r.Path + "@" + r.Version
		if r.Version == "" {
			id += filepath.Clean(r.Dir)
		}
	}
	return id
}

// VersionLess compares Go versions such as 1.12 and 1.21.0.
func VersionLess(a, b string) bool { return version.Compare("go"+a, "go"+b) < 0 }

// setupWorkspace does for workspace mode what the temporary go.mod does
// otherwise (-modfile cannot be used there): a copy of go.work, with its
// directories made absolute, uses the scheduler's copy and replaces the
// copied modules; GOWORK names it.
func (ws *Workspace) setupWorkspace(ctx context.Context, gowork string, needXB bool) (*ModSetup, error) {
	dir := filepath.Join(ws.tmp, "work")
	data, err := os.ReadFile(gowork)
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	work := filepath.Join(dir, "go.work")
	if err := writeFile(work, data); err != nil {
		return nil, err
	}
	if sum, err := os.ReadFile(gowork + ".sum"); err == nil {
		if err := writeFile(work+".sum", sum); err != nil {
			return nil, err
		}
	}
	out, err := RunGo(ctx, dir, "work", "edit", "-json", work)
	if err != nil {
		return nil, err
	}
	var wf struct {
		Go      string
		Use     []struct{ DiskPath string }
		Replace []struct {
			Old struct{ Path, Version string }
			New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &wf); err != nil {
		return nil, fmt.Errorf("instrument: go work edit: %v", err)
	}
	base := filepath.Dir(gowork)
	args := []string{"work", "edit"}
	for _, u := range wf.Use {
		abs := u.DiskPath
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
			args = append(args, "-dropuse="+u.DiskPath, "-use="+abs)
		}
		if m, err := os.ReadFile(filepath.Join(abs, "go.mod")); err == nil && modulePath(m) == xbModule {
			needXB = false // the workspace has xbtest already
		}
	}
	for _, r := range wf.Replace {
		if r.New.Version == "" && !filepath.IsAbs(r.New.Path) {
			old := r.Old.Path
			if r.Old.Version != "" {
				old += "@" + r.Old.Version
			}
			args = append(args, "-replace="+old+"="+filepath.Join(base, r.New.Path))
		}
	}
	if needXB {
		st, err := ws.xb.stripped(wf.Go, ws.cache, ws.persist)
		if err != nil {
			return nil, err
		}
		args = append(args, "-use="+st)
	}
	for _, c := range ws.copies {
		args = append(args, "-replace="+c.path+"="+c.to)
	}
	args = append(args, work)
	if _, err := RunGo(ctx, dir, args...); err != nil {
		return nil, err
	}
	return &ModSetup{Env: []string{"GOWORK=" + work}}, nil
}

// modulePath returns the module path a go.mod declares.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
