// Package buildkey keys the build of rewritten tests: everything
// instrument.Prepare and the builds of its plan depend on, so that what
// they made can be kept (package internal/buildcache) and used again
// while the key is the same. instrument.BuildKey is its entry point.
//
// The key hashes the command's own executable (the rewriter and
// everything it links), the scheduler source the rewritten code links,
// the whole of `go env` (toolchain, target, GOFLAGS, C toolchain, main
// module, workspace), the options that change the rewrite (Inputs), and
// for every package in the build of the tests (`go list -deps -test`):
// its module's version, and unless it is of the standard library or of
// the module cache (where the version says what the files are), the
// content of each of its files (keyHasher), and the go.mod, go.sum and
// go.work files of the modules outside the module cache. It costs a go
// list (no type checking) and reading the files.
package buildkey

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"github.com/xbtest/xbtest/settings"
)

// Inputs are the options of the rewrite that the key covers
// (instrument.Options), and the rewriter's version.
type Inputs struct {
	Dir      string
	Patterns []string
	Extra    []string
	Tags     []string
	Memory   settings.Memory
	NoDeps   bool
	Rewriter string // identifies the rewriter's source (its packages' files)
}

// Key returns the key of the build of in's packages (see the package
// doc), or an error if the go command cannot list one of them.
func Key(ctx context.Context, opt Inputs) (string, error) {
	dir, err := filepath.Abs(cmp.Or(opt.Dir, "."))
	if err != nil {
		return "", err
	}
	patterns := opt.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	var (
		wg                     sync.WaitGroup
		envJSON, listed        []byte
		schedKey               string
		envErr, listErr, xbErr error
	)
	wg.Go(func() { envJSON, envErr = build.GoEnvJSON(ctx, dir) })
	wg.Go(func() {
		args := []string{"list", "-e", "-deps", "-test", "-json=" + listFields}
		if len(opt.Tags) > 0 {
			args = append(args, "-tags="+strings.Join(opt.Tags, ","))
		}
		args = append(args, "--")
		args = append(args, patterns...)
		args = append(args, opt.Extra...)
		listed, listErr = build.RunGo(ctx, dir, args...)
	})
	wg.Go(func() {
		xb, err := build.LocateXBTest(ctx)
		if err == nil {
			schedKey, err = xb.SourceKey()
		}
		xbErr = err
	})
	wg.Wait()
	for _, err := range []error{envErr, listErr, xbErr} {
		if err != nil {
			return "", err
		}
	}
	self, err := executableHash()
	if err != nil {
		return "", err
	}
	var envAll map[string]string
	if err := json.Unmarshal(envJSON, &envAll); err != nil {
		return "", fmt.Errorf("instrument: go env: %v", err)
	}
	// GOGCCFLAGS names a fresh temporary directory each time; what it is
	// made of (CC, CGO_CFLAGS...) is there by itself.
	delete(envAll, "GOGCCFLAGS")
	envJSON, _ = json.Marshal(envAll)
	env := struct{ GOMODCACHE, GOWORK string }{envAll["GOMODCACHE"], envAll["GOWORK"]}

	h := sha256.New()
	tags := slices.Clone(opt.Tags)
	sort.Strings(tags)
	fmt.Fprintf(h, "xbtest build key 1\nexecutable %s\nbuild %s\nrewriter %s\nscheduler %s\n", self, build.OwnHash(), opt.Rewriter, schedKey)
	fmt.Fprintf(h, "memory %s\ntags %q\nextra %q\nnodeps %v\n", opt.Memory, tags, opt.Extra, opt.NoDeps)
	fmt.Fprintf(h, "go env %d\n", len(envJSON))
	h.Write(envJSON)
	k := &keyHasher{h: h, modCache: env.GOMODCACHE, seen: map[string]bool{}}
	if env.GOWORK != "" && env.GOWORK != "off" {
		k.file(env.GOWORK)
		k.file(env.GOWORK + ".sum")
	}
	dec := json.NewDecoder(bytes.NewReader(listed))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", fmt.Errorf("instrument: go list: %v", err)
		}
		if p.Error != nil || len(p.DepsErrors) > 0 || p.Incomplete {
			return "", fmt.Errorf("instrument: %s: cannot be listed", p.ImportPath)
		}
		if err := k.pkg(&p); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:20]), nil
}

// listFields are the fields of go list that say what a build reads.
const listFields = "ImportPath,Dir,Standard,DepOnly,Module,Incomplete,Error,DepsErrors," +
	"GoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles,SwigFiles,SwigCXXFiles,SysoFiles," +
	"TestGoFiles,XTestGoFiles,EmbedFiles,TestEmbedFiles,XTestEmbedFiles,IgnoredGoFiles"

type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	Incomplete bool
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
	Module     *listedModule
	// The files, by kind, relative to Dir.
	GoFiles, CgoFiles, CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles, SwigFiles, SwigCXXFiles, SysoFiles []string
	TestGoFiles, XTestGoFiles, EmbedFiles, TestEmbedFiles, XTestEmbedFiles                                  []string
	// IgnoredGoFiles count by name only: the rewrite picks names for its
	// generated files that no file of the directory has.
	IgnoredGoFiles []string
}

type listedModule struct {
	Path, Version, Dir, GoMod, GoVersion string
	Main                                 bool
	Replace                              *listedModule
}

// keyHasher adds packages and files to a key.
type keyHasher struct {
	h        hash.Hash
	modCache string
	seen     map[string]bool // files hashed
}

func (k *keyHasher) pkg(p *listedPackage) error {
	fmt.Fprintf(k.h, "package %q dir %q std %v target %v\n", p.ImportPath, p.Dir, p.Standard, !p.DepOnly)
	if p.Standard {
		return nil // GOROOT and GOVERSION (go env) say what it is
	}
	if m := p.Module; m != nil {
		fmt.Fprintf(k.h, "module %s@%s dir %q gomod %q go %s main %v", m.Path, m.Version, m.Dir, m.GoMod, m.GoVersion, m.Main)
		if r := m.Replace; r != nil {
			fmt.Fprintf(k.h, " => %s@%s dir %q gomod %q", r.Path, r.Version, r.Dir, r.GoMod)
		}
		fmt.Fprintln(k.h)
		if k.immutable(m) {
			return nil // module@version in the module cache never changes
		}
		gomod := m.GoMod
		if m.Replace != nil {
			gomod = m.Replace.GoMod
		}
		if gomod != "" {
			k.file(gomod)
			k.file(filepath.Join(filepath.Dir(gomod), "go.sum"))
			k.file(filepath.Join(filepath.Dir(gomod), "vendor", "modules.txt"))
		}
	}
	for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles,
		p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.TestGoFiles, p.XTestGoFiles, p.EmbedFiles, p.TestEmbedFiles, p.XTestEmbedFiles} {
		for _, f := range list {
			if filepath.IsAbs(f) {
				continue // made by the go command from the others (a test main in its cache)
			}
			if err := k.mustFile(filepath.Join(p.Dir, f)); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(k.h, "ignored %q\n", p.IgnoredGoFiles)
	return nil
}

// immutable reports whether m's files are module@version's in the module
// cache.
func (k *keyHasher) immutable(m *listedModule) bool {
	dir, version := m.Dir, m.Version
	if m.Replace != nil {
		dir, version = m.Replace.Dir, m.Replace.Version
	}
	if m.Main || version == "" || k.modCache == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(k.modCache, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// file adds a file's content, or that it does not exist.
func (k *keyHasher) file(path string) {
	if err := k.mustFile(path); err != nil {
		fmt.Fprintf(k.h, "no file %q\n", path)
	}
}

func (k *keyHasher) mustFile(path string) error {
	if k.seen[path] {
		return nil
	}
	k.seen[path] = true
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	fmt.Fprintf(k.h, "file %q %d\n", path, len(data))
	k.h.Write(data)
	return nil
}

// executableHash identifies the running program (the rewriter, the build
// plumbing, everything xbtest links): a hash of its executable.
var executableHash = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
})
