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

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

func sample() *Schedule {
	return &Schedule{Package: "example.com/p", Dir: "/tmp", Test: "TestX",
		Flags:   Flags{Semantics: settings.Semantics{Algorithm: settings.ExitBlockRWDD, SyncDeps: true, Memory: settings.SC, MaxSteps: 100000, FairBlocks: 100}},
		Finding: Finding{Want: result.Want{Kind: result.Deadlock, Message: "all goroutines are asleep", Pos: "p/x.go:3"}, Schedule: 2},
		Decisions: []result.Block{{Kind: result.DecisionBlock, Goroutine: "T0", Thread: 0, Points: 2, End: 4, Preempt: true, Op: "Mutex.Unlock", Pos: "p/x.go:5", Fn: "p.f", Src: "mu.Unlock()"},
			{Kind: result.DecisionBlock, Goroutine: "T0.1", Thread: 1, Points: 3, End: 9, Choices: []int32{1}, Mid: true, Pos: "p/x.go:7"}}}
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

// A file written before a setting existed reads as what xbtest did then,
// and is normalised as the command line is: tso implies access
// granularity, "hybrid" is the old name of hb.
func TestReadOldFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	old := `{"version": 2, "package": "example.com/p", "test": "TestX",
	  "flags": {"algorithm": "exitblock-rwdd", "sync_deps": false, "memory": "tso", "race": "hybrid", "max_steps": 5000},
	  "finding": {"kind": "race", "message": "data race", "schedule": 3},
	  "decisions": [{"kind": "block", "g": "T0", "t": 0, "points": 2}]}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := settings.Semantics{Algorithm: settings.ExitBlockRWDD, SyncDeps: true, Memory: settings.TSO, Granularity: settings.Access,
		Race: eraser.HB, MaxSteps: 5000, FairBlocks: 100, Timers: settings.Synctest}
	if s.Flags.Semantics != want {
		t.Errorf("flags %+v, want %+v", s.Flags.Semantics, want)
	}
	if s.Finding.Kind != result.Race || s.Finding.Schedule != 3 {
		t.Errorf("finding %+v", s.Finding)
	}
	bad := strings.Replace(old, `"memory": "tso"`, `"memory": "rmo"`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), `unknown memory model "rmo"`) {
		t.Errorf("a file with memory rmo: %v", err)
	}
}

// A finding without a schedule removes the file an earlier run wrote under
// its number, and only a file of the same package's test.
func TestRemove(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, "p", sample(), 1); err != nil {
		t.Fatal(err)
	}
	foreign := sample()
	foreign.Package = "example.com/q/p"
	if _, err := Write(dir, "p", foreign, 2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		gone bool
	}{{1, true}, {1, false}, {2, false}, {3, false}} {
		gone, err := Remove(dir, "p", "example.com/p", "TestX", c.n)
		if err != nil || gone != c.gone {
			t.Errorf("Remove(%d) = %v, %v; want %v, nil", c.n, gone, err, c.gone)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(left) != 1 || filepath.Base(left[0]) != "p.TestX.2.json" {
		t.Errorf("left %v, want the other package's p.TestX.2.json", left)
	}
}
