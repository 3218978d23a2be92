package build

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Module is a module of the module cache that has packages to rewrite,
// with its entry in the persistent cache. The go command does not overlay
// the module cache's files: CopyModules copies the module, the rewrite
// writes into the copy, and the temporary go.mod or go.work replaces the
// module by it.
type Module struct {
	Mod   *packages.Module
	Entry string // its entry in the persistent cache (DepCache.EntryDir), "" if it has none
	Hit   bool   // the entry exists (EntryExists): it is used as it is
}

// modCopy is a module copied out of the module cache.
type modCopy struct {
	path     string // module path
	from, to string
	entry    *Module // the module, if it has an entry in the persistent cache, or nil
}

// CopyModules copies the modules of the module cache that have packages to
// rewrite. A module with an entry in the persistent cache is used from
// there as it is when the entry exists, else copied into a temporary
// directory of the cache, which PublishCopies renames into the entry once
// rewritten; the others are copied into the plan's directory. On an error,
// call DropUnpublished.
func (ws *Workspace) CopyModules(mods []*Module) error {
	if ws.env.GOMODCACHE == "" {
		return nil
	}
	done := map[string]bool{}
	for _, e := range mods {
		m := e.Mod
		dir := ws.env.ModCacheDir(m)
		if dir == "" {
			continue
		}
		if done[dir] {
			continue
		}
		done[dir] = true
		if e.Entry == "" {
			e = nil
		}
		if e != nil && e.Hit {
			ws.copies = append(ws.copies, modCopy{path: m.Path, from: dir, to: e.Entry, entry: e})
			ws.logf("instrument: using the cached rewrite of %s@%s in %s", m.Path, m.Version, e.Entry)
			continue
		}
		to := filepath.Join(ws.tmp, "mod", strings.NewReplacer("/", "_", "@", "_").Replace(m.Path+"@"+m.Version))
		if e != nil {
			var err error
			if to, err = os.MkdirTemp(ws.persist, ".tmp-"); err != nil {
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

// PublishCopies renames the copies made for the persistent cache into
// their entries, once rewritten. On an error, call DropUnpublished.
func (ws *Workspace) PublishCopies() error {
	for i := range ws.copies {
		c := &ws.copies[i]
		if c.entry != nil && !c.entry.Hit {
			if err := publish(c.to, c.entry.Entry); err != nil {
				return err
			}
			c.to = c.entry.Entry
			ws.logf("instrument: cached the rewrite of %s@%s in %s", c.path, c.entry.Mod.Version, c.entry.Entry)
		}
	}
	return nil
}

// DropUnpublished removes the copies made for the persistent cache that
// were not renamed into their entries.
func (ws *Workspace) DropUnpublished() {
	for _, c := range ws.copies {
		if c.entry != nil && !c.entry.Hit && c.to != c.entry.Entry {
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
