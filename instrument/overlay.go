package instrument

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// workspace holds the files a plan writes.
type workspace struct {
	tmp     string // the plan's own directory, removed by Cleanup
	cache   string // where rewritten files go (tmp, or the caller's CacheDir)
	persist string // the persistent cache of rewritten modules (depcache.go), or ""
	env     *goEnvVars
	xb      *xbtestInfo
	logf    func(string, ...any)

	overlay map[string]string // original (or added) path -> file holding its content
	copies  []modCopy         // modules copied out of the module cache
	baseMod string            // a go.mod to base the temporary one on instead of the main module's (getTestDeps), or ""
}

// add records the rewritten content of the file at orig (which may be a
// file the rewrite adds). Files of a copied module are written into the
// copy; the others go to the cache and into the overlay.
func (ws *workspace) add(orig string, content []byte) error {
	for _, c := range ws.copies {
		if rel, ok := within(c.from, orig); ok {
			return writeFile(filepath.Join(c.to, rel), content)
		}
	}
	sum := sha256.Sum256(append([]byte(orig+"\x00"), content...))
	dst := filepath.Join(ws.cache, "files", hex.EncodeToString(sum[:8]), filepath.Base(orig))
	if old, err := os.ReadFile(dst); err != nil || !bytes.Equal(old, content) {
		// Write aside and rename: another run may be reading the file.
		if err := writeFile(dst+".tmp"+strconv.Itoa(os.Getpid()), content); err != nil {
			return err
		}
		if err := os.Rename(dst+".tmp"+strconv.Itoa(os.Getpid()), dst); err != nil {
			return fmt.Errorf("instrument: %v", err)
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

func writeFile(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("instrument: %v", err)
	}
	return nil
}

// writeOverlay writes the overlay file of `go build -overlay`.
func (ws *workspace) writeOverlay() (string, error) {
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
