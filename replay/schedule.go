// Package replay reads and writes schedule files: the record of one
// failing schedule (which goroutine ran each atomic block, the notify and
// select choices, where each block ended) that lets a finding be watched
// again.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
)

// Version is the format version this xbtest writes and reads. Version 1
// (absolute event numbers, no anchors) cannot be replayed.
const Version = 2

// Schedule is the content of a schedule file.
type Schedule struct {
	Version   int        `json:"version"`
	XBTest    string     `json:"xbtest"` // the xbtest that wrote it (module version, or "devel")
	Package   string     `json:"package"`
	Dir       string     `json:"dir"` // where xbtest ran
	Test      string     `json:"test"`
	Flags     Flags      `json:"flags"`
	Finding   Finding    `json:"finding"`
	Shortened *Shortened `json:"shortened,omitempty"`
	Decisions []Decision `json:"decisions"`
}

// Flags are the settings the schedule was found with.
type Flags struct {
	Algorithm   string   `json:"algorithm"`
	SyncDeps    bool     `json:"sync_deps"`
	Memory      string   `json:"memory"`
	Granularity string   `json:"granularity,omitempty"` // sync (default) or access
	Race        string   `json:"race,omitempty"`
	MaxSteps    int64    `json:"max_steps"`
	Tags        []string `json:"tags,omitempty"`
	Instrument  []string `json:"instrument,omitempty"`
}

// Finding is what the schedule leads to.
type Finding struct {
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Pos      string `json:"pos,omitempty"`
	Src      string `json:"src,omitempty"` // the source line at Pos: a finding whose line moved is still the same
	Schedule int    `json:"schedule"`
}

// Shortened is the schedule exploration found, before minimisation.
type Shortened struct {
	Blocks      int `json:"blocks"`
	Preemptions int `json:"preemptions"`
}

// Decision kinds. Only blocks exist: a store-buffer flush (-memory tso|pso)
// is a block of the goroutine's flush pseudo-goroutine ("T0.1 store
// buffer"), and which timers fire when virtual time advances is recorded
// among the choices of the block before the advance (see scheduler/clock.go).
const KindBlock = "block"

var knownKinds = map[string]bool{KindBlock: true}

// Decision is one scheduling decision, in order. For a "block": goroutine G
// (thread index T) ran one atomic block from the end of the previous one
// through Points scheduling points (counted from the start of the second
// goroutine for the first block), the last of which ended it: operation Op
// at Pos, in function Fn, whose source line is Src. It took Choices at its
// notify and select points. Preempt: G could have gone on. Mid: the last
// block, cut where the finding happened. End is the event number in the
// recording run, for information only.
type Decision struct {
	Kind      string  `json:"kind"`
	Goroutine string  `json:"g"`
	Thread    int32   `json:"t"`
	Points    int     `json:"points"`
	Choices   []int32 `json:"choices,omitempty"`
	Mid       bool    `json:"mid,omitempty"`
	Preempt   bool    `json:"preempt,omitempty"`
	Op        string  `json:"op,omitempty"`
	Pos       string  `json:"pos,omitempty"`
	Fn        string  `json:"fn,omitempty"`
	Src       string  `json:"src,omitempty"`
	End       int64   `json:"end,omitempty"`
}

// Preemptions counts the decisions that stopped a goroutine that could have
// gone on.
func (s *Schedule) Preemptions() int {
	n := 0
	for _, d := range s.Decisions {
		if d.Preempt {
			n++
		}
	}
	return n
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Write stores s in dir as the n-th finding of its test (a new run of the
// same test replaces the files of the last one) and returns the path.
func Write(dir string, s *Schedule, n int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s.Version = Version
	if s.XBTest == "" {
		s.XBTest = ToolVersion()
	}
	base := unsafeName.ReplaceAllString(filepath.Base(s.Package)+"."+s.Test, "_")
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s.%d.json", base, n))
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
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
	var s Schedule
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
		if !knownKinds[d.Kind] {
			return nil, fmt.Errorf("%s: decision %d has kind %q, which this xbtest cannot replay", path, i, d.Kind)
		}
		if d.Points < 0 || d.Thread < 0 || d.Goroutine == "" {
			return nil, fmt.Errorf("%s: decision %d is malformed", path, i)
		}
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
