package sapphirecopy

import (
	"os"
	"sync"
	"testing"
)

// run has the collector copy and flip while the mutator writes 1 and then
// reads the field, before or after the flip as the schedule has it
// (Models 1-3 with the nondeterministic loop unrolled once: a write, then
// a read; §1's counterexample needs no more, and a second read doubles
// the schedules of the two-word field under TSO many times over).
func run(t *testing.T, k Kind, c Collector) {
	h := NewHeap(k, c)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.Collect() }()
	go func() {
		defer wg.Done()
		h.Write(1)
		h.Read()
	}()
	wg.Wait()
	for _, v := range h.Violations() {
		t.Errorf("the mutator %s", v)
	}
}

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest -memory tso ./corpus/gc/sapphirecopy)")
	}
}

func TestCASOneWord(t *testing.T)   { run(t, OneWord, CAS) }
func TestCASTwoWord(t *testing.T)   { run(t, TwoWord, CAS) }
func TestCASReference(t *testing.T) { run(t, Reference, CAS) }
func TestSTMOneWord(t *testing.T)   { run(t, OneWord, STM) }
func TestSTMTwoWord(t *testing.T)   { run(t, TwoWord, STM) }
func TestSTMReference(t *testing.T) { run(t, Reference, STM) }

func TestSTMNoFenceOneWord(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, OneWord, STMNoFence)
}

func TestSTMNoFenceTwoWord(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, TwoWord, STMNoFence)
}

func TestSTMNoFenceReference(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, Reference, STMNoFence)
}
