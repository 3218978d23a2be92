package stopless

import (
	"os"
	"testing"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
)

// run runs one scenario against the collector and asserts the property:
// the mutator reads what it wrote last, else the initial value, and no
// barrier assertion fails.
func run(t *testing.T, v Variant, s copyphase.Scenario) {
	h := New(v)
	got, want := copyphase.Run(h, s)
	if got != want {
		t.Errorf("%s: the mutator read %d, want %d", s, got, want)
	}
	for _, a := range h.Violations() {
		t.Errorf("%s: %s", s, a)
	}
}

// known skips, under plain go test, a variant with a documented failure
// (under some memory model of Table 2).
func known(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest -memory pso -cas relaxed ./corpus/gc/stopless)")
	}
}

func TestOriginalWR(t *testing.T) {
	known(t)
	run(t, Original, copyphase.WR)
}

func TestOriginalRW(t *testing.T) {
	known(t)
	run(t, Original, copyphase.RW)
}

func TestFence26WR(t *testing.T) {
	known(t)
	run(t, Fence26, copyphase.WR)
}

func TestFence26RW(t *testing.T) {
	known(t)
	run(t, Fence26, copyphase.RW)
}

func TestFence26And14WR(t *testing.T) {
	known(t)
	run(t, Fence26And14, copyphase.WR)
}

func TestFence26And14RW(t *testing.T) {
	known(t)
	run(t, Fence26And14, copyphase.RW)
}

func TestForRMOWR(t *testing.T) {
	run(t, ForRMO, copyphase.WR)
}

func TestForRMORW(t *testing.T) {
	run(t, ForRMO, copyphase.RW)
}
