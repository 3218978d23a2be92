package chicken

import (
	"os"
	"testing"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
)

// run runs one scenario against the collector and asserts the property:
// the mutator reads what it wrote last, else the initial value.
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
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest -memory pso ./corpus/gc/chicken)")
	}
}

func TestChickenWR(t *testing.T) {
	known(t)
	run(t, Chicken, copyphase.WR)
}

func TestChickenRW(t *testing.T) {
	known(t)
	run(t, Chicken, copyphase.RW)
}

func TestChickenFenceAfterForwardWR(t *testing.T) {
	known(t)
	run(t, ChickenFenceAfterForward, copyphase.WR)
}

func TestChickenFenceAfterForwardRW(t *testing.T) {
	known(t)
	run(t, ChickenFenceAfterForward, copyphase.RW)
}

func TestStaccatoWR(t *testing.T) {
	known(t)
	run(t, Staccato, copyphase.WR)
}

func TestStaccatoRW(t *testing.T) {
	known(t)
	run(t, Staccato, copyphase.RW)
}

func TestStaccatoFixFenceWR(t *testing.T) {
	run(t, StaccatoFixFence, copyphase.WR)
}

func TestStaccatoFixFenceRW(t *testing.T) {
	run(t, StaccatoFixFence, copyphase.RW)
}

func TestStaccatoFixRelFenceWR(t *testing.T) {
	run(t, StaccatoFixRelFence, copyphase.WR)
}

func TestStaccatoFixRelFenceRW(t *testing.T) {
	run(t, StaccatoFixRelFence, copyphase.RW)
}
