package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/build/constraint"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
)

// XBTest describes the xbtest source rewritten code links against: the
// scheduler and the packages it imports, of which SetupModule gives the
// build a copy.
type XBTest struct {
	root      string
	goVersion string
	pkgs      []listedPkg     // the scheduler and the packages it imports, except the standard library
	sched     map[string]bool // their import paths
}

type listedPkg struct {
	ImportPath string
	Dir        string
	Module     *struct{ Path, Version, GoVersion string }
}

// IsScheduler reports whether path is the scheduler or a package it
// imports outside the standard library: those are never rewritten.
func (xb *XBTest) IsScheduler(path string) bool { return xb.sched[path] }

// LocateXBTest finds the source of this package's module: where it was
// compiled from, or, for a binary built with -trimpath, the module cache.
func LocateXBTest(ctx context.Context) (*XBTest, error) {
	root := ""
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "..", "..") // this file is instrument/internal/build/xbtest.go
		if _, err := os.Stat(filepath.Join(dir, "scheduler")); err == nil {
			root = dir
		}
	}
	if root == "" {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return nil, fmt.Errorf("instrument: cannot find the source of %s", xbModule)
		}
		version := ""
		if bi.Main.Path == xbModule {
			version = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == xbModule {
				version = d.Version
			}
		}
		if version == "" || version == "(devel)" {
			return nil, fmt.Errorf("instrument: cannot find the source of %s (built with -trimpath from a checkout?)", xbModule)
		}
		out, err := RunGo(ctx, os.TempDir(), "mod", "download", "-json", xbModule+"@"+version)
		if err != nil {
			return nil, err
		}
		var m struct{ Dir string }
		if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
			return nil, fmt.Errorf("instrument: cannot find the source of %s@%s", xbModule, version)
		}
		root = m.Dir
	}
	info := &XBTest{root: root, sched: map[string]bool{}}
	out, err := RunGo(ctx, root, "list", "-deps", "-json=ImportPath,Dir,Standard,Module", xbModule+"/scheduler")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			listedPkg
			Standard bool
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("instrument: go list: %v", err)
		}
		if p.Standard {
			continue
		}
		info.pkgs = append(info.pkgs, p.listedPkg)
		info.sched[p.ImportPath] = true
		if p.Module != nil && p.Module.Path == xbModule {
			info.goVersion = p.Module.GoVersion
		}
	}
	return info, nil
}

// sourceFiles lists the files of a package directory a build may need.
func sourceFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, "_test.go") {
			continue
		}
		switch filepath.Ext(n) {
		case ".go", ".s", ".h", ".c":
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// stripped returns a directory holding the scheduler's packages as module
// github.com/xbtest/xbtest with a go.mod of its own, named by its content so
// that the build cache recognizes it across runs.
//
// Since Go 1.21 the main module's go line must be at least that of every
// dependency, so the copy declares the lower of the user's and xbtest's
// versions, and each of its Go files gets a //go:build constraint on
// xbtest's version, which gives that file xbtest's language version. The
// directory is in cache, or in persist, the persistent cache of rewritten
// modules, if there is one.
func (xb *XBTest) stripped(userGo, cache, persist string) (string, error) {
	modGo := xb.goVersion
	if userGo != "" && VersionLess(userGo, modGo) {
		modGo = userGo
	}
	type file struct {
		rel  string
		data []byte
	}
	var files []file
	requires := map[string]string{}
	for _, p := range xb.pkgs {
		if p.Module == nil || p.Module.Path != xbModule {
			if p.Module != nil {
				requires[p.Module.Path] = p.Module.Version
			}
			continue
		}
		srcs, err := sourceFiles(p.Dir)
		if err != nil {
			return "", err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, xbModule), "/")
		for _, s := range srcs {
			data, err := os.ReadFile(s)
			if err != nil {
				return "", fmt.Errorf("instrument: %v", err)
			}
			if strings.HasSuffix(s, ".go") && modGo != xb.goVersion {
				if data, err = requireGo(data, xb.goVersion); err != nil {
					return "", fmt.Errorf("instrument: %s: %v", s, err)
				}
			}
			files = append(files, file{filepath.Join(rel, filepath.Base(s)), data})
		}
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module %s\n\ngo %s\n", xbModule, modGo)
	var reqs []string
	for path, v := range requires {
		reqs = append(reqs, path+" "+v)
	}
	sort.Strings(reqs)
	for _, r := range reqs {
		fmt.Fprintf(&gomod, "require %s\n", r)
	}
	files = append(files, file{"go.mod", []byte(gomod.String())})
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.rel, len(f.data))
		h.Write(f.data)
	}
	// In the persistent cache if there is one: the build cache recognizes
	// the scheduler's packages, and the rewritten modules of that cache
	// that import them, only in the same directory.
	if persist != "" {
		cache = persist
	}
	dir := filepath.Join(cache, "xbtest-"+hex.EncodeToString(h.Sum(nil)[:8]))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	// Build it aside and rename it, so that a concurrent run never sees a
	// partial copy.
	part, err := os.MkdirTemp(cache, ".xbtest-part-")
	if err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(part, f.rel), f.data); err != nil {
			os.RemoveAll(part)
			return "", err
		}
	}
	if err := os.Rename(part, dir); err != nil {
		os.RemoveAll(part)
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr != nil {
			return "", fmt.Errorf("instrument: %v", err)
		}
	}
	return dir, nil
}

// requireGo adds the constraint go1.N (N of v) to a file's build
// constraint, which sets the file's language version.
func requireGo(src []byte, v string) ([]byte, error) {
	parts := versionParts(v)
	tag := fmt.Sprintf("go%d.%d", parts[0], parts[1])
	lines := strings.SplitAfter(string(src), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "package ") {
			break
		}
		if expr, ok := strings.CutPrefix(t, "//go:build "); ok {
			if _, err := constraint.Parse(t); err != nil {
				return nil, err
			}
			lines[i] = fmt.Sprintf("//go:build %s && (%s)\n", tag, expr)
			return []byte(strings.Join(lines, "")), nil
		}
	}
	return append([]byte("//go:build "+tag+"\n\n"), src...), nil
}

func versionParts(v string) []int {
	out := []int{0, 0}
	for i, f := range strings.SplitN(strings.TrimPrefix(v, "go"), ".", 3) {
		if i >= 2 {
			break
		}
		n, _ := strconv.Atoi(f)
		out[i] = n
	}
	return out
}
