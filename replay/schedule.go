// Package replay reads and writes schedule files: the record of one
// failing schedule (which goroutine ran each atomic block, the notify and
// select choices, where each block ended) that lets a finding be watched
// again.
package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// Version is the format version this xbtest writes and reads. Version 1
// (absolute event numbers, no anchors) cannot be replayed.
const Version = 2

// Schedule is the content of a schedule file.
type Schedule struct {
	Version   int               `json:"version"`
	XBTest    string            `json:"xbtest"` // the xbtest that wrote it (module version, or "devel")
	Package   string            `json:"package"`
	Dir       string            `json:"dir"` // where xbtest ran
	Test      string            `json:"test"`
	Flags     Flags             `json:"flags"`
	Finding   Finding           `json:"finding"`
	Shortened *result.Shortened `json:"shortened,omitempty"`
	Env       *Env              `json:"env,omitempty"`
	// Decisions are the schedule's blocks, each of kind
	// result.DecisionBlock.
	Decisions []result.Block `json:"decisions"`
}

// Finding is what the schedule leads to: what a replay must find again,
// and the schedule of the exploration that first showed it.
type Finding struct {
	result.Want
	Schedule int `json:"schedule"`
}

// Preemptions counts the schedule's preemptions.
func (s *Schedule) Preemptions() int { return result.Preemptions(s.Decisions) }

// Env is what the program could see of its process when the schedule was
// recorded, beyond the flags: the GOMAXPROCS the test body ran with (one P
// while exploring, and so when replaying) and the environment variables,
// each by a hash of its value (a schedule file may be shared; a secret in
// the environment must not be). A replay that diverges names the variables
// that changed since.
type Env struct {
	GOMAXPROCS int               `json:"gomaxprocs"`
	Vars       map[string]string `json:"vars,omitempty"`
}

// CurrentEnv describes this process's environment, for a test body that
// runs with gomaxprocs Ps. xbtest's own variables are left out.
func CurrentEnv(gomaxprocs int) *Env {
	e := &Env{GOMAXPROCS: gomaxprocs, Vars: map[string]string{}}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "XBTEST") {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(v))
		e.Vars[k] = fmt.Sprintf("%016x", h.Sum64())
	}
	return e
}

// Changed lists, sorted, the variables whose value differs between the
// recording e and now, and GOMAXPROCS if it does.
func (e *Env) Changed(now *Env) []string {
	if e == nil || now == nil {
		return nil
	}
	var out []string
	if e.GOMAXPROCS != now.GOMAXPROCS {
		out = append(out, "GOMAXPROCS")
	}
	for k, v := range e.Vars {
		if now.Vars[k] != v {
			out = append(out, k)
		}
	}
	for k := range now.Vars {
		if _, ok := e.Vars[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Flags are the settings the schedule was found with: its semantics
// (what a replay follows, whatever the command line says) and what the
// build needs.
type Flags struct {
	settings.Semantics
	Tags       []string `json:"tags,omitempty"`
	Instrument []string `json:"instrument,omitempty"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Stems names the schedule files of packages: by the last element of the
// import path, or as many of the last elements as it takes to tell the
// packages of one run apart (a/config and b/config are a_config and
// b_config; in the unlikely case that still leaves two alike, a hash of
// the import path follows).
func Stems(pkgs []string) map[string]string {
	stems := map[string]string{}
	for n := 1; len(stems) < len(pkgs); n++ {
		count := map[string]int{}
		suffix := func(p string) string {
			el := strings.Split(p, "/")
			return strings.Join(el[max(0, len(el)-n):], "_")
		}
		for _, p := range pkgs {
			count[suffix(p)]++
		}
		for _, p := range pkgs {
			if _, done := stems[p]; !done && (count[suffix(p)] == 1 || n > strings.Count(p, "/")) {
				stems[p] = suffix(p)
			}
		}
	}
	uses := map[string]int{}
	for _, s := range stems {
		uses[s]++
	}
	for p, s := range stems {
		if uses[s] > 1 {
			h := fnv.New32a()
			h.Write([]byte(p))
			stems[p] = fmt.Sprintf("%s-%08x", s, h.Sum32())
		}
	}
	return stems
}

// fileName is the name of the n-th schedule file of a test.
func fileName(stem, test string, n int) string {
	return fmt.Sprintf("%s.%d.json", unsafeName.ReplaceAllString(stem+"."+test, "_"), n)
}

// Write stores s in dir as the n-th finding of its test, in a file named
// stem.TEST.n.json (stem from Stems), and returns the path.
func Write(dir, stem string, s *Schedule, n int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s.Version = Version
	for i := range s.Decisions {
		if s.Decisions[i].Kind == "" {
			s.Decisions[i].Kind = result.DecisionBlock
		}
	}
	if s.XBTest == "" {
		s.XBTest = ToolVersion()
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fileName(stem, s.Test, n))
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// Prune removes the files of a test's findings after the first keep that
// an earlier run left in dir (files of package pkg named as Write names
// them), so that a new run of the test replaces its files. It returns the
// paths it removed.
func Prune(dir, stem, pkg, test string, keep int) ([]string, error) {
	var removed []string
	for n := keep + 1; ; n++ {
		path := filepath.Join(dir, fileName(stem, test, n))
		gone, err := removeIfOf(path, pkg, test)
		if errors.Is(err, fs.ErrNotExist) {
			return removed, nil
		}
		if err != nil {
			return removed, err
		}
		if gone {
			removed = append(removed, path)
		}
	}
}

// Remove removes the schedule file number n of pkg's test, if an earlier
// run wrote one: this run's finding n has no schedule, and the old file
// must not pass for its. It reports whether there was one.
func Remove(dir, stem, pkg, test string, n int) (bool, error) {
	gone, err := removeIfOf(filepath.Join(dir, fileName(stem, test, n)), pkg, test)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return gone, err
}

// removeIfOf removes the file at path if it is a schedule of pkg's test
// (a file of another package's test that shares the name is left alone).
func removeIfOf(path, pkg, test string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var probe struct{ Package, Test string }
	if json.Unmarshal(b, &probe) != nil || probe.Package != pkg || probe.Test != test {
		return false, nil // not ours: leave it
	}
	return true, os.Remove(path)
}

// Read loads a schedule file, refusing files it cannot trust.
func Read(path string) (*Schedule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a schedule file (corrupt or truncated): %v", path, err)
	}
	switch {
	case probe.Version == nil || *probe.Version < 1:
		return nil, fmt.Errorf("%s: not a schedule file (no version)", path)
	case *probe.Version > Version:
		return nil, fmt.Errorf("%s: schedule format version %d is newer than this xbtest's (%d): replay it with a newer xbtest", path, *probe.Version, Version)
	case *probe.Version < Version:
		return nil, fmt.Errorf("%s: schedule format version %d was written by an older xbtest and cannot be replayed: run xbtest again to record the finding", path, *probe.Version)
	}
	// A setting the file does not have means what xbtest did before it
	// existed.
	s := Schedule{Flags: Flags{Semantics: settings.FileDefaults()}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a schedule file of version %d: %v", path, Version, err)
	}
	switch {
	case s.Package == "" || s.Test == "" || len(s.Decisions) == 0:
		return nil, fmt.Errorf("%s: incomplete schedule file (package, test or decisions missing)", path)
	case s.Finding.Kind == "":
		return nil, fmt.Errorf("%s: incomplete schedule file (no finding)", path)
	}
	for i, d := range s.Decisions {
		if d.Kind != result.DecisionBlock {
			return nil, fmt.Errorf("%s: decision %d has kind %q, which this xbtest cannot replay", path, i, d.Kind)
		}
		if d.Points < 0 || d.Thread < 0 || d.Goroutine == "" {
			return nil, fmt.Errorf("%s: decision %d is malformed", path, i)
		}
	}
	if err := s.Flags.Normalize(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if s.Decisions[0].Thread != 0 {
		return nil, fmt.Errorf("%s: the first decision is not the test goroutine's", path)
	}
	return &s, nil
}

// ToolVersion is the version of the xbtest module in this binary.
func ToolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if m.Path == "github.com/xbtest/xbtest" && m.Version != "" && m.Version != "(devel)" {
				return m.Version
			}
		}
	}
	return "devel"
}
