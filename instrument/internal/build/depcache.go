package build

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"
)

// The persistent cache of rewritten modules. A module of the module cache
// (module@version, immutable) that has packages to rewrite is copied and
// rewritten once into
//
//	<os.UserCacheDir()>/xbtest/deps/<module@version>-<key>
//
// and later runs use that copy as it is. The key covers everything the
// rewrite of the module's packages depends on: the module's version, the
// caller's key (the rewriter's version, the build tags, the memory model),
// the hash of this package's source (which copies the module), the go
// command's version and target (GOOS, GOARCH, CGO_ENABLED, GOEXPERIMENT,
// GOFLAGS), and for every package the module's rewritten packages import,
// directly or not, its module's version and whether it is rewritten
// (which changes how the importer is rewritten). A module whose packages
// import the main module or a module outside the module cache (a directory
// replacement, a vendored or workspace module, whose files may change) is
// rewritten afresh each run instead.
//
// An entry is written to a temporary directory and renamed into place, so
// that concurrent runs never see a partial one (the loser of a race removes
// its identical copy). Marker files inside an entry: xbtest-ok, written
// once a build compiled it (MarkOK); xbtest-bad, the packages whose
// rewrite did not compile (AddBad), which later runs leave alone (and so
// use another entry).

//go:embed *.go
var ownSource embed.FS

// sourceHash identifies this version of the package: a hash of its own
// source files.
var sourceHash = sync.OnceValue(func() string { return SourceHash(ownSource) })

// SourceHash is a hash of the Go files (tests left out) of fsys, in its
// subdirectories too: a package embeds its own source (and that of the
// internal packages it is made of) and so identifies its version (a cache
// entry made by another version is not used).
func SourceHash(fsys fs.FS) string {
	h := sha256.New()
	fs.WalkDir(fsys, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, _ := fs.ReadFile(fsys, path)
		fmt.Fprintf(h, "%s %d\n", path, len(data))
		h.Write(data)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:16])
}

const (
	okMarker  = "xbtest-ok"
	badMarker = "xbtest-bad"
)

// DepCache is the persistent cache of rewritten modules. Its entries are
// directories: CopyModules copies a module into its entry, the functions
// Entry* and the markers tell what became of it.
type DepCache struct {
	root    string // "" when there is none
	envKey  string // the part of every key that is the same for all modules
	modRoot string // GOMODCACHE
}

// OpenDepCache returns the cache at dir: "" for $XBTEST_DEPCACHE, else
// the default under os.UserCacheDir; "off" for none (nor without a module
// cache). key is the part of every entry's key that identifies the
// rewrite, which this package's source and the go command's version and
// target complete. It removes what killed runs left behind.
func OpenDepCache(dir, key string, env *Env, logf func(string, ...any)) *DepCache {
	dc := &DepCache{modRoot: env.GOMODCACHE}
	if dir == "off" || env.GOMODCACHE == "" {
		return dc
	}
	if dir == "" {
		dir = os.Getenv("XBTEST_DEPCACHE")
	}
	if dir == "off" || env.GOMODCACHE == "" {
		return dc
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			logf("instrument: no cache of rewritten modules: %v", err)
			return dc
		}
		dir = filepath.Join(base, "xbtest", "deps")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		logf("instrument: no cache of rewritten modules: %v", err)
		return dc
	}
	dc.root = dir
	removeStale(dir)
	dc.envKey = strings.Join([]string{key, "build " + sourceHash(), "go " + env.GOVERSION, "GOOS " + env.GOOS,
		"GOARCH " + env.GOARCH, "CGO_ENABLED " + env.CGO_ENABLED, "GOEXPERIMENT " + env.GOEXPERIMENT,
		"GOFLAGS " + env.GOFLAGS}, "\n")
	return dc
}

// immutable reports whether m's files are those of module@version in the
// module cache.
func (dc *DepCache) immutable(m *packages.Module) bool {
	if m == nil || m.Main || dc.modRoot == "" {
		return false
	}
	if m.Replace != nil && m.Replace.Version == "" || m.Replace == nil && m.Version == "" {
		return false
	}
	_, ok := within(dc.modRoot, modDir(m))
	return ok && modDir(m) != ""
}

// EntryDir returns the directory of module m's entry, whose packages pkgs
// (loaded with their imports) are rewritten, or "" if m cannot be cached.
// rewritten tells which packages are rewritten.
func (dc *DepCache) EntryDir(m *packages.Module, pkgs []*packages.Package, rewritten map[string]bool) string {
	if dc.root == "" || !dc.immutable(m) {
		return ""
	}
	lines := map[string]bool{}
	seen := map[*packages.Package]bool{}
	ok := true
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] || !ok {
			return
		}
		seen[p] = true
		if p.Module == nil {
			return // the standard library: the go version says which
		}
		if !dc.immutable(p.Module) {
			ok = false
			return
		}
		lines[fmt.Sprintf("%s %s %v", p.PkgPath, modID(p.Module), rewritten[p.PkgPath])] = true
		for _, q := range p.Imports {
			visit(q)
		}
	}
	for _, p := range pkgs {
		visit(p)
	}
	if !ok {
		return ""
	}
	var sorted []string
	for l := range lines {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	h := sha256.New()
	fmt.Fprintf(h, "%s\nmodule %s\n%s\n", dc.envKey, modID(m), strings.Join(sorted, "\n"))
	name := strings.NewReplacer("/", "_", "@", "@", "\\", "_", ":", "_").Replace(m.Path + "@" + m.Version)
	return filepath.Join(dc.root, name+"-"+hex.EncodeToString(h.Sum(nil)[:10]))
}

// EntryExists reports whether the entry at dir (DepCache.EntryDir) is
// there: a run published its rewritten copy (PublishCopies).
func EntryExists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// EntryOK reports whether a build compiled the entry.
func EntryOK(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, okMarker))
	return err == nil
}

// MarkOK records that a build compiled the entry.
func MarkOK(dir string) error { return markEntry(dir, okMarker, "") }

// EntryBad returns the packages an entry's rewrite did not compile, with
// why.
func EntryBad(dir string) map[string]string {
	data, err := os.ReadFile(filepath.Join(dir, badMarker))
	if err != nil {
		return nil
	}
	bad := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if path, why, ok := strings.Cut(l, "\t"); ok {
			bad[path] = why
		}
	}
	return bad
}

// markEntry writes a marker file into an entry, aside and renamed.
func markEntry(dir, name, content string) error {
	return writeAside(filepath.Join(dir, name), []byte(content))
}

// AddBad adds packages, with why, to an entry's list of packages whose
// rewrite does not compile.
func AddBad(dir string, failed map[string]string) error {
	bad := EntryBad(dir)
	if bad == nil {
		bad = map[string]string{}
	}
	for p, why := range failed {
		bad[p] = strings.ReplaceAll(why, "\n", " ")
	}
	var lines []string
	for p, why := range bad {
		lines = append(lines, p+"\t"+why)
	}
	sort.Strings(lines)
	return markEntry(dir, badMarker, strings.Join(lines, "\n")+"\n")
}

// publish renames a module copy made at tmp into its entry dir. If another
// run published the entry first, its copy (the same) is used.
func publish(tmp, dir string) error {
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if !EntryExists(dir) {
			return fmt.Errorf("instrument: %v", err)
		}
	}
	return nil
}

// removeStale removes what runs that were killed left behind in the cache:
// copies never renamed into their entries.
func removeStale(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".tmp-") && !strings.HasPrefix(e.Name(), ".xbtest-part-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// verifiedMarker returns the file whose existence says that the rewritten
// dependencies that what describes compiled, or "" without a cache.
func (dc *DepCache) verifiedMarker(what string) string {
	if dc.root == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(dc.envKey + "\x00" + what))
	return filepath.Join(dc.root, "verified", hex.EncodeToString(sum[:12]))
}

// IsVerified reports whether MarkVerified recorded what; false without a
// cache.
func (dc *DepCache) IsVerified(what string) bool {
	if m := dc.verifiedMarker(what); m != "" {
		if _, err := os.Stat(m); err == nil {
			return true
		}
	}
	return false
}

// MarkVerified records that the rewritten dependencies that what
// describes compiled; nothing without a cache.
func (dc *DepCache) MarkVerified(what string) error {
	if m := dc.verifiedMarker(what); m != "" {
		return writeFile(m, nil)
	}
	return nil
}
