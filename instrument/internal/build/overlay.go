package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Workspace holds the files a plan writes: the rewritten files, the
// copies of modules of the module cache, the overlay, the temporary go.mod
// or go.work.
type Workspace struct {
	tmp     string // the plan's own directory, removed by Cleanup
	cache   string // where rewritten files go (tmp, or the caller's CacheDir)
	persist string // the root of the persistent cache of rewritten modules (depcache.go), or ""
	env     *Env
	xb      *XBTest
	logf    func(string, ...any)

	overlay map[string]string // original (or added) path -> file holding its content
	copies  []modCopy         // modules copied out of the module cache
	baseMod string            // a go.mod to base the temporary one on instead of the main module's (GetTestDeps), or ""
}

// Config says where a Workspace writes and what the build is based on.
type Config struct {
	Tmp      string                           // the plan's own directory, which the caller removes when done
	Cache    string                           // where rewritten files go: Tmp, or a directory kept across runs, so that the go command's build cache recognizes them
	DepCache *DepCache                        // the persistent cache of rewritten modules (OpenDepCache)
	Env      *Env                             // the go command's environment (GoEnv)
	XBTest   *XBTest                          // the scheduler's source (LocateXBTest)
	BaseMod  string                           // a go.mod to base the temporary one on instead of the main module's (GetTestDeps), or ""
	Logf     func(format string, args ...any) // verbose diagnostics
}

// NewWorkspace returns an empty workspace.
func NewWorkspace(c Config) *Workspace {
	ws := &Workspace{tmp: c.Tmp, cache: c.Cache, env: c.Env, xb: c.XBTest, logf: c.Logf, overlay: map[string]string{}, baseMod: c.BaseMod}
	if c.DepCache != nil {
		ws.persist = c.DepCache.root
	}
	return ws
}

// Add records the rewritten content of the file at orig (which may be a
// file the rewrite adds). Files of a copied module (CopyModules) are
// written into the copy; the others go to the cache and into the overlay.
func (ws *Workspace) Add(orig string, content []byte) error {
	for _, c := range ws.copies {
		if rel, ok := within(c.from, orig); ok {
			return writeFile(filepath.Join(c.to, rel), content)
		}
	}
	sum := sha256.Sum256(append([]byte(orig+"\x00"), content...))
	dst := filepath.Join(ws.cache, "files", hex.EncodeToString(sum[:8]), filepath.Base(orig))
	if old, err := os.ReadFile(dst); err != nil || !bytes.Equal(old, content) {
		// Write aside and rename: another run may be reading the file.
		// The name aside is the writer's own: two packages of one run
		// (-p) may write the same file at once, and a name by pid was
		// renamed away under the other (TestDepsCacheConcurrent).
		if err := writeAside(dst, content); err != nil {
			return err
		}
	}
	if ws.overlay == nil {
		ws.overlay = map[string]string{}
	}
	ws.overlay[orig] = dst
	return nil
}

// within returns the path of p relative to dir, if p is inside dir.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// writeAside writes content to a new file beside path, then renames it
// to path.
func writeAside(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("instrument: %v", err)
	}
	return nil
}

func writeFile(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	return nil
}

// WriteOverlay writes the overlay file of `go build -overlay`, which
// replaces each original file by its rewrite, and returns its path.
func (ws *Workspace) WriteOverlay() (string, error) {
	if ws.overlay == nil {
		ws.overlay = map[string]string{}
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{ws.overlay}, "", "\t")
	if err != nil {
		return "", fmt.Errorf("instrument: %v", err)
	}
	path := filepath.Join(ws.tmp, "overlay.json")
	return path, writeFile(path, data)
}
