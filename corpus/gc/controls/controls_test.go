package controls

import (
	"testing"

	"github.com/xbtest/xbtest/corpus/gc/copyphase"
)

// run runs one scenario against the collector and asserts the property:
// the mutator reads what it wrote last, else the initial value.
func run(t *testing.T, p copyphase.Protocol, s copyphase.Scenario) {
	got, want := copyphase.Run(p, s)
	if got != want {
		t.Errorf("%s: the mutator read %d, want %d", s, got, want)
	}
	for _, a := range p.Violations() {
		t.Errorf("%s: %s", s, a)
	}
}

func TestBakerWR(t *testing.T) { run(t, NewBaker(), copyphase.WR) }

func TestBakerRW(t *testing.T) { run(t, NewBaker(), copyphase.RW) }

func TestReplicationWR(t *testing.T) { run(t, NewReplication(), copyphase.WR) }

func TestReplicationRW(t *testing.T) { run(t, NewReplication(), copyphase.RW) }

func TestCompressorWR(t *testing.T) { run(t, NewCompressor(), copyphase.WR) }

func TestCompressorRW(t *testing.T) { run(t, NewCompressor(), copyphase.RW) }

func TestPauselessWR(t *testing.T) { run(t, NewPauseless(), copyphase.WR) }

func TestPauselessRW(t *testing.T) { run(t, NewPauseless(), copyphase.RW) }

func TestSchismWR(t *testing.T) { run(t, NewSchism(), copyphase.WR) }

func TestSchismRW(t *testing.T) { run(t, NewSchism(), copyphase.RW) }
