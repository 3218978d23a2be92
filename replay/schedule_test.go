package replay

import (
	"os"
	"path/filepath"
	"reflect"
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
	path, err := Write(dir, sample(), 1)
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
	if p2, err := Write(dir, sample(), 1); err != nil || p2 != path {
		t.Errorf("rewrite: %s %v", p2, err)
	}
}

func TestReadRefusesWhatItCannotTrust(t *testing.T) {
	dir := t.TempDir()
	good, _ := Write(dir, sample(), 1)
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
