package replay

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func sample() *Schedule {
	return &Schedule{Package: "example.com/p", Dir: "/tmp", Test: "TestX",
		Flags:   Flags{Algorithm: "exitblock-rwdd", SyncDeps: true, Memory: "sc", MaxSteps: 100000},
		Finding: Finding{Kind: "deadlock", Message: "all goroutines are asleep", Pos: "p/x.go:3", Schedule: 2},
		Decisions: []Decision{{Kind: KindBlock, Goroutine: "T0", Thread: 0, Points: 2, End: 4, Preempt: true, Op: "Mutex.Unlock", Pos: "p/x.go:5", Fn: "p.f", Src: "mu.Unlock()"},
			{Kind: KindBlock, Goroutine: "T0.1", Thread: 1, Points: 3, End: 9, Choices: []int32{1}, Mid: true, Pos: "p/x.go:7"}}}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	path, err := Write(dir, "p", sample(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "p.TestX.1.json" {
		t.Errorf("file %s", path)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	want.Version = Version
	want.XBTest = "devel"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, wrote %+v", got, want)
	}
	// The same finding of the next run replaces the file.
	if p2, err := Write(dir, "p", sample(), 1); err != nil || p2 != path {
		t.Errorf("rewrite: %s %v", p2, err)
	}
}

func TestReadRefusesWhatItCannotTrust(t *testing.T) {
	dir := t.TempDir()
	good, _ := Write(dir, "p", sample(), 1)
	b, _ := os.ReadFile(good)
	for name, c := range map[string]struct{ content, want string }{
		"corrupt":    {"{not json", "not a schedule file (corrupt or truncated)"},
		"truncated":  {string(b[:len(b)/2]), "not a schedule file (corrupt or truncated)"},
		"newer":      {strings.Replace(string(b), `"version": 2`, `"version": 99`, 1), "version 99 is newer"},
		"older":      {strings.Replace(string(b), `"version": 2`, `"version": 1`, 1), "written by an older xbtest"},
		"kind":       {strings.Replace(string(b), `"kind": "block"`, `"kind": "flush"`, 1), `kind "flush", which this xbtest cannot replay`},
		"unknown":    {strings.Replace(string(b), `"test": "TestX"`, `"test": "TestX", "extra": 1`, 1), "unknown field"},
		"no finding": {strings.Replace(string(b), `"kind": "deadlock"`, `"kind": ""`, 1), "no finding"},
		"foreign":    {`{"hello": "world"}`, "no version"},
		"empty":      {strings.Replace(string(b), `"test": "TestX"`, `"test": ""`, 1), "incomplete schedule file"},
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(c.content), 0o644)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

func TestStems(t *testing.T) {
	got := Stems([]string{"example.com/m/config", "example.com/m/internal/config", "example.com/m/cmd/tool", "example.com/x/y/a_b", "example.com/z/a/b", "example.com/w/b"})
	want := map[string]string{
		"example.com/m/config":          "m_config",
		"example.com/m/internal/config": "internal_config",
		"example.com/m/cmd/tool":        "tool",
		// a/b and w/b need two elements, and a_b of a/b is a_b of y/a_b.
		"example.com/x/y/a_b": "a_b-" + fnvHex("example.com/x/y/a_b"),
		"example.com/z/a/b":   "a_b-" + fnvHex("example.com/z/a/b"),
		"example.com/w/b":     "w_b",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stems = %v, want %v", got, want)
	}
}

func fnvHex(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// TestPrune: a new run of a test with fewer findings removes the files of
// the ones it no longer has, and leaves other tests' and foreign files.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	for n := 1; n <= 3; n++ {
		if _, err := Write(dir, "p", sample(), n); err != nil {
			t.Fatal(err)
		}
	}
	other := sample()
	other.Test = "TestY"
	if _, err := Write(dir, "p", other, 2); err != nil {
		t.Fatal(err)
	}
	// A file of another package that happens to have the name.
	foreign := sample()
	foreign.Package = "example.com/q/p"
	if _, err := Write(dir, "p", foreign, 4); err != nil {
		t.Fatal(err)
	}
	removed, err := Prune(dir, "p", "example.com/p", "TestX", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "p.TestX.2.json"), filepath.Join(dir, "p.TestX.3.json")}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if want := []string{"p.TestX.1.json", "p.TestX.4.json", "p.TestY.2.json"}; len(left) != len(want) {
		t.Errorf("left %v, want %v", left, want)
	} else {
		for i, l := range left {
			if filepath.Base(l) != want[i] {
				t.Errorf("left %v, want %v", left, want)
			}
		}
	}
}
