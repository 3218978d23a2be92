package clover

import (
	"os"
	"testing"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
)

// run runs one scenario against the collector and asserts the property:
// the mutator reads what it wrote last, else the initial value.
func run(t *testing.T, alpha int64, v Variant, s copyphase.Scenario) {
	h := New(alpha, v)
	got, want := copyphase.Run(h, s)
	if got != want {
		t.Errorf("%s, alpha %d: the mutator read %d, want %d", s, alpha, got, want)
	}
	for _, a := range h.Violations() {
		t.Errorf("%s: %s", s, a)
	}
}

// known skips, under plain go test, a variant with a documented failure
// (under some memory model of Table 2).
func known(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest ./corpus/gc/clover)")
	}
}

func TestOriginalA0WR(t *testing.T) {
	known(t)
	run(t, 0, Original, copyphase.WR)
}

func TestOriginalA0RW(t *testing.T) {
	known(t)
	run(t, 0, Original, copyphase.RW)
}

func TestOriginalA1WR(t *testing.T) {
	known(t)
	run(t, 1, Original, copyphase.WR)
}

func TestOriginalA1RW(t *testing.T) {
	known(t)
	run(t, 1, Original, copyphase.RW)
}

func TestOriginalA2WR(t *testing.T) {
	known(t)
	run(t, 2, Original, copyphase.WR)
}

func TestOriginalA2RW(t *testing.T) {
	known(t)
	run(t, 2, Original, copyphase.RW)
}

func TestFixA0WR(t *testing.T) {
	run(t, 0, Fix, copyphase.WR)
}

func TestFixA0RW(t *testing.T) {
	run(t, 0, Fix, copyphase.RW)
}

func TestFixA1WR(t *testing.T) {
	known(t)
	run(t, 1, Fix, copyphase.WR)
}

func TestFixA1RW(t *testing.T) {
	known(t)
	run(t, 1, Fix, copyphase.RW)
}

func TestFixA2WR(t *testing.T) {
	known(t)
	run(t, 2, Fix, copyphase.WR)
}

func TestFixA2RW(t *testing.T) {
	known(t)
	run(t, 2, Fix, copyphase.RW)
}

func TestForRMOA0WR(t *testing.T) {
	run(t, 0, ForRMO, copyphase.WR)
}

func TestForRMOA0RW(t *testing.T) {
	run(t, 0, ForRMO, copyphase.RW)
}

func TestForRMOA1WR(t *testing.T) {
	run(t, 1, ForRMO, copyphase.WR)
}

func TestForRMOA1RW(t *testing.T) {
	run(t, 1, ForRMO, copyphase.RW)
}

func TestForRMOA2WR(t *testing.T) {
	run(t, 2, ForRMO, copyphase.WR)
}

func TestForRMOA2RW(t *testing.T) {
	run(t, 2, ForRMO, copyphase.RW)
}
