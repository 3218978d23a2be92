package buildcache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPutGet(t *testing.T) {
	c, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get("k", t.TempDir()); !errors.Is(err, ErrMiss) {
		t.Fatalf("empty cache: %v, want ErrMiss", err)
	}
	src := writeTemp(t, "binary")
	if err := c.Put("k", []byte("meta"), map[string]string{"test": src}); err != nil {
		t.Fatal(err)
	}
	os.Remove(src) // the entry has its own copy
	dst := t.TempDir()
	data, files, err := c.Get("k", dst)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(files["test"])
	if string(data) != "meta" || string(got) != "binary" || filepath.Dir(files["test"]) != dst {
		t.Errorf("Get: %q, %v (%q)", data, files, got)
	}
	if st, err := os.Stat(files["test"]); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("the file is not executable: %v, %v", st, err)
	}
	// Storing the same key again (another run did) keeps one entry.
	if err := c.Put("k", []byte("meta"), map[string]string{"test": writeTemp(t, "binary")}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "../k", ".tmp-x", "a/b"} {
		if err := c.Put(bad, nil, nil); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
	}
}

// A file of an entry that does not match its manifest (a truncated copy,
// a disk error) is a miss, and the entry is removed, so the next run
// stores a good one.
func TestCorruptedEntryIsAMiss(t *testing.T) {
	for _, corrupt := range []func(dir string) error{
		func(dir string) error { return os.WriteFile(filepath.Join(dir, "test"), []byte("binarz"), 0o755) },
		func(dir string) error { return os.Truncate(filepath.Join(dir, "test"), 3) },
		func(dir string) error { return os.Remove(filepath.Join(dir, "test")) },
		func(dir string) error { return os.WriteFile(filepath.Join(dir, manifestName), []byte("{"), 0o644) },
	} {
		c, err := Open(t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Put("k", nil, map[string]string{"test": writeTemp(t, "binary")}); err != nil {
			t.Fatal(err)
		}
		if err := corrupt(c.entryDir("k")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Get("k", t.TempDir()); !errors.Is(err, ErrMiss) {
			t.Errorf("corrupted entry: %v, want ErrMiss", err)
		}
		if _, err := os.Stat(c.entryDir("k")); !os.IsNotExist(err) {
			t.Errorf("corrupted entry not removed: %v", err)
		}
	}
}

// The cache stays within its bound by evicting the entries used least
// recently.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c, err := Open(t.TempDir(), 2500)
	if err != nil {
		t.Fatal(err)
	}
	kb := writeTemp(t, string(bytes.Repeat([]byte("x"), 1000)))
	put := func(key string) {
		if err := c.Put(key, nil, map[string]string{"f": kb}); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	put("b")
	// a was used after b: b goes first.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(c.entryDir("b"), manifestName), old, old)
	os.Chtimes(filepath.Join(c.entryDir("a"), manifestName), old.Add(time.Minute), old.Add(time.Minute))
	if _, _, err := c.Get("a", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	put("c")
	for key, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, err := os.Stat(c.entryDir(key)); (err == nil) != want {
			t.Errorf("entry %s there: %v, want %v", key, err == nil, want)
		}
	}
}

// Runs that store and read the same entries at once see whole entries or
// none.
func TestConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	src := writeTemp(t, string(bytes.Repeat([]byte("binary"), 100000)))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Go(func() {
			c, err := Open(dir, 0)
			if err != nil {
				errs <- err
				return
			}
			for j := range 4 {
				key := fmt.Sprint("k", j)
				if err := c.Put(key, []byte(key), map[string]string{"test": src}); err != nil {
					errs <- err
				}
				data, files, err := c.Get(key, t.TempDir())
				if err != nil || string(data) != key || files["test"] == "" {
					errs <- fmt.Errorf("run %d: Get(%s) = %q, %v, %v after its Put", i, key, data, files, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"100": 100, "2K": 2048, "3M": 3 << 20, "1G": 1 << 30, "0": 0, "x": 0, "-1M": 0} {
		got, err := ParseSize(in)
		if got != want || (err == nil) != (want > 0) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
