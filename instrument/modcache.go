package instrument

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// modCopy is a module copied out of the module cache.
type modCopy struct {
	path     string // module path
	from, to string
}

// copyModules copies the modules of the module cache that have packages to
// rewrite.
func (ws *workspace) copyModules(pkgs []*rwPkg) error {
	if ws.env.GOMODCACHE == "" {
		return nil
	}
	done := map[string]bool{}
	for _, p := range pkgs {
		m := p.pkg.Module
		if m == nil || m.Main {
			continue
		}
		dir := m.Dir
		if m.Replace != nil && m.Replace.Dir != "" {
			dir = m.Replace.Dir
		}
		if _, ok := within(ws.env.GOMODCACHE, dir); !ok || dir == "" {
			continue
		}
		p.copied = true
		if done[dir] {
			continue
		}
		done[dir] = true
		to := filepath.Join(ws.tmp, "mod", strings.NewReplacer("/", "_", "@", "_").Replace(m.Path+"@"+m.Version))
		if err := copyTree(dir, to); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(to, "go.mod")); err != nil {
			// A module without go.mod: the go command synthesized one.
			if err := writeFile(filepath.Join(to, "go.mod"), []byte("module "+m.Path+"\n")); err != nil {
				return err
			}
		}
		ws.copies = append(ws.copies, modCopy{path: m.Path, from: dir, to: to})
		ws.logf("instrument: copied module %s@%s to %s", m.Path, m.Version, to)
	}
	return nil
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
