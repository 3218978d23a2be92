package driver

import (
	"slices"
	"testing"
)

// Processes of a fork tree each hold a goroutine started before the test,
// perhaps at another hook: the result names each such goroutine once.
func TestOneHoldEach(t *testing.T) {
	held := func(started, at string) string {
		return heldStarted + started + heldBefore + "was held while the test ran (at " + at + "), so its interleavings with the test are not explored"
	}
	in := []string{
		held("a.go:3", "a.go:9"),
		"goroutine T0 was stopped after 10 scheduling steps in one execution",
		held("b.go:4", "b.go:7"),
		held("a.go:3", "a.go:12"),
	}
	want := []string{in[0], in[1], in[2]}
	if got := oneHoldEach(in); !slices.Equal(got, want) {
		t.Errorf("oneHoldEach:\n%q\nwant\n%q", got, want)
	}
	if got := oneHoldEach(nil); got != nil {
		t.Errorf("oneHoldEach(nil) = %q", got)
	}
}
