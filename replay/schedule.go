// Package replay reads and writes schedule files: the record of one
// failing schedule (which goroutine ran each atomic block, the notify and
// select choices, where each block ended) that lets a finding be watched
// again.
package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Version is the format version this xbtest writes and reads.
const Version = 1

// Schedule is the content of a schedule file.
type Schedule struct {
	Version int     `json:"version"`
	Package string  `json:"package"`
	Dir     string  `json:"dir"` // where xbtest ran
	Test    string  `json:"test"`
	Flags   Flags   `json:"flags"`
	Finding Finding `json:"finding"`
	Blocks  []Block `json:"blocks"`
}

// Flags are the settings the schedule was found with.
type Flags struct {
	Algorithm  string   `json:"algorithm"`
	SyncDeps   bool     `json:"sync_deps"`
	Memory     string   `json:"memory"`
	Race       string   `json:"race,omitempty"`
	MaxSteps   int64    `json:"max_steps"`
	Tags       []string `json:"tags,omitempty"`
	Instrument []string `json:"instrument,omitempty"`
}

// Finding is what the schedule leads to.
type Finding struct {
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Pos      string `json:"pos,omitempty"`
	Schedule int    `json:"schedule"`
}

// Block is one atomic block: goroutine Thread (ID in reports) ran until
// event End of the execution, taking Choices at its notify/select points,
// and stopped at Pos.
type Block struct {
	Goroutine string  `json:"g"`
	Thread    int32   `json:"t"`
	End       int64   `json:"end"`
	Choices   []int32 `json:"choices,omitempty"`
	Pos       string  `json:"pos,omitempty"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Write stores s in dir as the n-th finding of its test (a new run of the
// same test replaces the files of the last one) and returns the path.
func Write(dir string, s *Schedule, n int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	s.Version = Version
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
	var s Schedule
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a schedule file (corrupt or truncated): %v", path, err)
	}
	switch {
	case s.Version > Version:
		return nil, fmt.Errorf("%s: schedule format version %d is newer than this xbtest's (%d)", path, s.Version, Version)
	case s.Version < 1:
		return nil, fmt.Errorf("%s: not a schedule file (no version)", path)
	case s.Package == "" || s.Test == "" || len(s.Blocks) == 0:
		return nil, fmt.Errorf("%s: incomplete schedule file (package, test or blocks missing)", path)
	}
	return &s, nil
}
