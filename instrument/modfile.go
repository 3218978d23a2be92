package instrument

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

// How rewritten code gets the scheduler. Rewritten files import
// github.com/xbtest/xbtest/scheduler. In xbtest's own module nothing is
// needed. Elsewhere a temporary go.mod (-modfile) requires the module and
// replaces it by a directory holding a copy of the scheduler and the
// packages it imports (xbtest.go), with a go.mod that requires nothing, so
// that the user's go.sum needs no new entries; the user's go.mod and go.sum
// are not touched. Packages of the module cache cannot be overlaid: their
// module is copied, rewritten in place, and the temporary go.mod replaces
// it by the copy (modcache.go). A module that builds from vendor/ is built
// in module mode from its vendor/ directory (vendor.go); in workspace mode a
// temporary go.work does the job of the go.mod (workfile.go).

const (
	xbModule        = "github.com/xbtest/xbtest"
	xbPseudoVersion = "v0.0.0-00010101000000-000000000000"
)

type goEnvVars struct {
	GOMODCACHE string
	GOROOT     string // the go command's, whose src the loader parses without bodies
	GOFLAGS    string
	GOWORK     string
	GOMOD      string // the main module's go.mod, where go test runs ("" or os.DevNull outside a module)

	// What else the build depends on (the keys of the cache of rewritten
	// modules, depcache.go).
	GOVERSION, GOOS, GOARCH, CGO_ENABLED, GOEXPERIMENT string
}

func goEnv(ctx context.Context, dir string) (*goEnvVars, error) {
	out, err := runGo(ctx, dir, "env", "-json", "GOMODCACHE", "GOROOT", "GOFLAGS", "GOWORK", "GOMOD",
		"GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT")
	if err != nil {
		return nil, err
	}
	var e goEnvVars
	if err := json.Unmarshal(out, &e); err != nil {
		return nil, fmt.Errorf("instrument: go env: %v", err)
	}
	return &e, nil
}

func runGo(ctx context.Context, dir string, args ...string) ([]byte, error) {
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

// mainModule returns the module go test runs in: the one whose go.mod `go
// env GOMOD` names in the working directory. The targets may belong to
// another module (a dependency named by its import path, whose module is
// copied out of the module cache): the temporary go.mod is always based on
// the main module's. It is nil outside a module.
func mainModule(ctx context.Context, env *goEnvVars, roots []*packages.Package) (*packages.Module, error) {
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
	out, err := runGo(ctx, filepath.Dir(gomod), "mod", "edit", "-json", gomod)
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

// getTestDeps writes a copy of main's go.mod and go.sum into dir, runs
// `go get -t` of the queries on it (the go command downloads what it
// needs through its proxy, as for go test), and returns the copy's path:
// it is loaded with -modfile and is the base of the temporary go.mod. The
// user's files do not change. When go get fails, the original go.mod is
// kept and the load's errors say what is missing.
func getTestDeps(ctx context.Context, runDir, dir string, main *packages.Module, queries []string, logf func(string, ...any)) (string, error) {
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
	if _, err := runGo(ctx, runDir, args...); err != nil {
		logf("instrument: adding the test dependencies of %s: %v", strings.Join(queries, " "), err)
		return "", nil
	}
	logf("instrument: added the test dependencies of %s to a copy of %s", strings.Join(queries, " "), main.GoMod)
	return modFile, nil
}

// modSetup is how the build finds the scheduler.
type modSetup struct {
	modFile string
	flags   []string // go command flags
	env     []string
}

func (ws *workspace) setupModule(ctx context.Context, main *packages.Module) (*modSetup, error) {
	needXB := main == nil || main.Path != xbModule
	if !needXB && len(ws.copies) == 0 {
		return &modSetup{}, nil
	}
	if main == nil || main.GoMod == "" {
		return nil, fmt.Errorf("instrument: the packages are not in a module")
	}
	if w := ws.env.GOWORK; w != "" && w != "off" {
		return ws.setupWorkspace(ctx, w, needXB)
	}
	dir := filepath.Join(ws.tmp, "mod")
	var vmods []vendored
	ms := &modSetup{}
	if ws.env.vendorMode(main) {
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
		ms.flags = []string{"-mod=mod"}
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
		st, err := ws.stripped(moduleGo(main))
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
		out, err := runGo(ctx, dir, "mod", "edit", "-json", modFile)
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
	}
	args = append(args, modFile)
	if _, err := runGo(ctx, dir, args...); err != nil {
		return nil, err
	}
	ms.modFile = modFile
	return ms, nil
}

// moduleGo returns the Go version of module m's go line, 1.16 if it has
// none (as the go command assumes, for a module without go.mod too), ""
// outside a module.
func moduleGo(m *packages.Module) string {
	switch {
	case m == nil:
		return ""
	case m.GoVersion == "":
		return "1.16"
	}
	return m.GoVersion
}

// versionLess compares Go versions such as 1.12 and 1.21.0.
func versionLess(a, b string) bool { return version.Compare("go"+a, "go"+b) < 0 }
