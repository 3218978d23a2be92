package hmsapphire

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
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest -memory pso ./corpus/gc/hmsapphire)")
	}
}

func TestIterationWR(t *testing.T) {
	run(t, Iteration, copyphase.WR)
}

func TestIterationRW(t *testing.T) {
	run(t, Iteration, copyphase.RW)
}

func TestLLSCWR(t *testing.T) {
	run(t, LLSC, copyphase.WR)
}

func TestLLSCRW(t *testing.T) {
	run(t, LLSC, copyphase.RW)
}

func TestX86WR(t *testing.T) {
	known(t)
	run(t, X86, copyphase.WR)
}

func TestX86RW(t *testing.T) {
	known(t)
	run(t, X86, copyphase.RW)
}

func TestX86FenceAfterVoWR(t *testing.T) {
	known(t)
	run(t, X86FenceAfterVo, copyphase.WR)
}

func TestX86FenceAfterVoRW(t *testing.T) {
	known(t)
	run(t, X86FenceAfterVo, copyphase.RW)
}
