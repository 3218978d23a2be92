// Package buildcache is the persistent cache of what a run builds: the
// rewritten test binaries and what the rewrite told about the packages, so
// that a second run of unchanged packages skips loading, rewriting and
// building and starts exploring at once.
//
// Entries are directories named by their key (a content hash the caller
// computes: instrument.BuildKey) under the cache's root, each holding its
// files and a manifest with every file's size and SHA-256. Get checks them
// (a corrupted or truncated entry is a miss and is removed, so the next run
// rebuilds it); Put writes an entry aside and renames it into place, so a
// concurrent run never sees a partial one; the cache is bounded in size,
// and Put evicts the entries used least recently (Get touches the
// manifest).
package buildcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultMax is the size bound of a cache when none is given: a test
// binary is 5 to 30 MB, so a few hundred of them.
const DefaultMax = 4 << 30

// EnvDir names the cache's directory ("off": none); EnvMax its size bound
// in bytes (suffixes K, M, G).
const (
	EnvDir = "XBTEST_CACHE"
	EnvMax = "XBTEST_CACHE_MAX"
)

// Off is the directory setting that disables the cache.
const Off = "off"

// ErrMiss is Get's error when the cache has no usable entry for a key.
var ErrMiss = errors.New("not in the build cache")

// Cache is a directory of entries.
type Cache struct {
	root string
	max  int64
}

// DefaultDir is where the cache is unless the user says otherwise:
// $XBTEST_CACHE if set, else xbtest/build under os.UserCacheDir(). It is
// "" when the cache is off ($XBTEST_CACHE=off).
func DefaultDir() (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == Off {
		return "", nil
	}
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("build cache: %v (set %s, or %s=off)", err, EnvDir, EnvDir)
	}
	return filepath.Join(base, "xbtest", "build"), nil
}

// Open returns the cache in dir, made if needed. max bounds its size (0:
// $XBTEST_CACHE_MAX if set, else DefaultMax). It removes what killed runs
// left behind.
func Open(dir string, max int64) (*Cache, error) {
	if max == 0 {
		if s := os.Getenv(EnvMax); s != "" {
			n, err := ParseSize(s)
			if err != nil {
				return nil, fmt.Errorf("build cache: %s=%q: %v", EnvMax, s, err)
			}
			max = n
		} else {
			max = DefaultMax
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("build cache: %v", err)
	}
	c := &Cache{root: dir, max: max}
	c.removeStale()
	return c, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.root }

// ParseSize reads a size in bytes with an optional suffix K, M or G
// (powers of 1024).
func ParseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive number of bytes, optionally with K, M or G")
	}
	return n * mult, nil
}

const manifestName = "manifest.json"

// manifest lists an entry's files.
type manifest struct {
	Data  []byte          `json:"data,omitempty"` // the caller's metadata
	Files map[string]file `json:"files,omitempty"`
}

type file struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

func (c *Cache) entryDir(key string) string { return filepath.Join(c.root, key) }

// Put stores an entry for key: data (the caller's metadata) and the files
// (name in the entry: path to copy it from). If another run stored the
// same key meanwhile, its entry stays. It then evicts the entries used
// least recently while the cache is over its bound.
func (c *Cache) Put(key string, data []byte, files map[string]string) error {
	if err := validKey(key); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(c.root, ".tmp-")
	if err != nil {
		return fmt.Errorf("build cache: %v", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename, else a partial entry
	m := manifest{Data: data, Files: map[string]file{}}
	for name, src := range files {
		if name == manifestName || name != filepath.Base(name) {
			return fmt.Errorf("build cache: bad file name %q", name)
		}
		f, err := copyFile(src, filepath.Join(tmp, name))
		if err != nil {
			return fmt.Errorf("build cache: %v", err)
		}
		m.Files[name] = f
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), b, 0o644); err != nil {
		return fmt.Errorf("build cache: %v", err)
	}
	if err := os.Rename(tmp, c.entryDir(key)); err != nil {
		if _, statErr := os.Stat(filepath.Join(c.entryDir(key), manifestName)); statErr != nil {
			return fmt.Errorf("build cache: %v", err)
		}
	}
	c.evict(key)
	return nil
}

// Get returns the entry of key: its metadata, and its files copied (or
// linked) into dst, by name. A missing entry is ErrMiss; so is a corrupted
// one (a file that does not match the manifest), which Get removes.
func (c *Cache) Get(key, dst string) (data []byte, files map[string]string, err error) {
	if validKey(key) != nil {
		return nil, nil, ErrMiss
	}
	dir := c.entryDir(key)
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, nil, ErrMiss
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		c.remove(key)
		return nil, nil, ErrMiss
	}
	files = map[string]string{}
	for name, want := range m.Files {
		if name != filepath.Base(name) || name == manifestName {
			c.remove(key)
			return nil, nil, ErrMiss
		}
		out := filepath.Join(dst, name)
		// A link survives the entry's eviction by another run while
		// the caller uses it; checked after linking, so what is checked
		// is what the caller gets.
		os.Remove(out)
		if os.Link(filepath.Join(dir, name), out) != nil {
			if _, err := copyFile(filepath.Join(dir, name), out); err != nil {
				// Evicted meanwhile (the whole entry went at once), or the
				// file is missing from it.
				if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
					c.remove(key)
				}
				return nil, nil, ErrMiss
			}
		}
		got, err := sum(out)
		if err != nil || got != want {
			os.Remove(out)
			c.remove(key)
			return nil, nil, ErrMiss
		}
		files[name] = out
	}
	now := time.Now()
	os.Chtimes(filepath.Join(dir, manifestName), now, now) // used: last to be evicted
	return m.Data, files, nil
}

func validKey(key string) error {
	if key == "" || strings.HasPrefix(key, ".") || key != filepath.Base(key) {
		return fmt.Errorf("build cache: bad key %q", key)
	}
	return nil
}

// remove removes an entry: renamed aside first, so that no run reads a
// half-removed one.
func (c *Cache) remove(key string) {
	aside := filepath.Join(c.root, ".tmp-rm-"+key+"-"+strconv.Itoa(os.Getpid()))
	if os.Rename(c.entryDir(key), aside) == nil {
		os.RemoveAll(aside)
	}
}

// evict removes the entries used least recently, but keep, while the
// cache holds more than its bound.
func (c *Cache) evict(keep string) {
	ents, err := os.ReadDir(c.root)
	if err != nil {
		return
	}
	type entry struct {
		key  string
		used time.Time
		size int64
	}
	var all []entry
	var total int64
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := os.Stat(filepath.Join(c.root, e.Name(), manifestName))
		if err != nil {
			continue
		}
		size := dirSize(filepath.Join(c.root, e.Name()))
		all = append(all, entry{e.Name(), info.ModTime(), size})
		total += size
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	for _, e := range all {
		if total <= c.max {
			break
		}
		if e.key == keep {
			continue
		}
		c.remove(e.key)
		total -= e.size
	}
}

func dirSize(dir string) int64 {
	var n int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// removeStale removes what runs that were killed left behind: entries
// never renamed into place, or removed halfway.
func (c *Cache) removeStale() {
	ents, _ := os.ReadDir(c.root)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(c.root, e.Name()))
		}
	}
}

// copyFile copies src to dst (mode 0755: test binaries are executed) and
// returns its size and hash.
func copyFile(src, dst string) (file, error) {
	in, err := os.Open(src)
	if err != nil {
		return file{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return file{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return file{}, err
	}
	return file{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// sum is a file's size and hash.
func sum(path string) (file, error) {
	f, err := os.Open(path)
	if err != nil {
		return file{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return file{}, err
	}
	return file{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
