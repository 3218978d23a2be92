package result

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard names one of Count processes that together explore what one
// process would: each explores every test, but only its part of each
// test's schedule tree (scheduler/internal/shard says how the tree is
// split). Index is 0-based, as Bazel's TEST_SHARD_INDEX and Kubernetes's
// JOB_COMPLETION_INDEX are. The zero Shard is the whole tree.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Cut is the generation of the tree's split (shard.DefaultCut when
	// 0): every shard of one run must use the same.
	Cut int `json:"cut,omitempty"`
}

// Active reports whether s is a proper part (Count > 1).
func (s Shard) Active() bool { return s.Count > 1 }

// String is "i/n", as -shard takes it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Check says what is wrong with s, if anything.
func (s Shard) Check() error {
	switch {
	case s.Count < 1:
		return fmt.Errorf("shard count %d: must be at least 1", s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard index %d: must be in [0, %d)", s.Index, s.Count)
	case s.Cut < 0:
		return fmt.Errorf("shard cut %d: must not be negative", s.Cut)
	}
	return nil
}

// ParseShard reads "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Check()
}
