package instrument

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// modCopy is a module copied out of the module cache.
type modCopy struct {
	path     string // module path
	from, to string
	entry    *modEntry // its entry in the persistent cache, or nil
}

// copyModules copies the modules of the module cache that have packages to
// rewrite. A module with an entry in the persistent cache (entryOf) is
// used from there as it is when the entry exists, else copied into a
// temporary directory of the cache, which is renamed into the entry once
// rewritten; the others are copied into the plan's directory.
func (ws *workspace) copyModules(pkgs []*rwPkg, entryOf map[*rwPkg]*modEntry, cacheRoot string) error {
	if ws.env.GOMODCACHE == "" {
		return nil
	}
	done := map[string]bool{}
	for _, p := range pkgs {
		m := p.pkg.Module
		if m == nil || m.Main {
			continue
		}
		dir := modDir(m)
		if _, ok := within(ws.env.GOMODCACHE, dir); !ok || dir == "" {
			continue
		}
		if done[dir] {
			continue
		}
		done[dir] = true
		e := entryOf[p]
		if e != nil && e.dir == "" {
			e = nil
		}
		if e != nil && e.hit {
			ws.copies = append(ws.copies, modCopy{path: m.Path, from: dir, to: e.dir, entry: e})
			ws.logf("instrument: using the cached rewrite of %s@%s in %s", m.Path, m.Version, e.dir)
			continue
		}
		to := filepath.Join(ws.tmp, "mod", strings.NewReplacer("/", "_", "@", "_").Replace(m.Path+"@"+m.Version))
		if e != nil {
			var err error
			if to, err = os.MkdirTemp(cacheRoot, ".tmp-"); err != nil {
				return fmt.Errorf("instrument: %v", err)
			}
		}
		ws.copies = append(ws.copies, modCopy{path: m.Path, from: dir, to: to, entry: e})
		if err := copyTree(dir, to); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(to, "go.mod")); err != nil {
			// A module without go.mod: the go command synthesized one.
			if err := writeFile(filepath.Join(to, "go.mod"), []byte("module "+m.Path+"\n")); err != nil {
				return err
			}
		}
		ws.logf("instrument: copied module %s@%s to %s", m.Path, m.Version, to)
	}
	return nil
}

// dropUnpublished removes the copies made for the persistent cache that
// were not renamed into their entries.
func (ws *workspace) dropUnpublished() {
	for _, c := range ws.copies {
		if c.entry != nil && !c.entry.hit && c.to != c.entry.dir {
			os.RemoveAll(c.to)
		}
	}
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}
