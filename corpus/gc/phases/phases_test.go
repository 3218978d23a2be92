package phases

import (
	"os"
	"sync"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest ./corpus/gc/...)")
	}
}

// mark runs §2's collector and the counterexample's two mutators: mutator
// 0 allocates an object and stores it in object 1, mutator 1 loads it and
// stores object 1 into it.
func mark(t *testing.T, typeII bool) {
	h := NewMarkHeap()
	m0, m1 := h.NewMutator(0), h.NewMutator(1)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); h.Collector(typeII) }()
	go func() { defer wg.Done(); m0.Run(Alloc1, Write01) }()
	go func() { defer wg.Done(); m1.Run(Read01, Write10) }()
	wg.Wait()
	if v := h.Violation(); v != "" {
		t.Errorf("strong tricolour invariant: %s", v)
	}
}

// TestMarkTypeI: without PREMARK1, the paper's 4-step counterexample.
func TestMarkTypeI(t *testing.T) {
	skipUnlessXBTest(t)
	mark(t, false)
}

// TestMarkTypeII: with PREMARK1 the invariant holds.
func TestMarkTypeII(t *testing.T) {
	mark(t, true)
}

// flip runs §3's collector and the counterexample's two mutators: mutator
// 0 writes object 0 into itself, mutator 1 loads object 0's field and
// writes root0 into root1.
func flip(t *testing.T, typeII bool) {
	h := NewFlipHeap()
	m0, m1 := h.NewMutator(0), h.NewMutator(1)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); h.Collector(typeII) }()
	go func() { defer wg.Done(); m0.Run(FlipWrite00) }()
	go func() { defer wg.Done(); m1.Run(FlipRead01, FlipWrite10) }()
	wg.Wait()
	if v := h.Violation(); v != "" {
		t.Errorf("tospace invariant: %s", v)
	}
}

// TestFlipTypeI: without PREFLIP1, the paper's 5-step counterexample.
func TestFlipTypeI(t *testing.T) {
	skipUnlessXBTest(t)
	flip(t, false)
}

// TestFlipTypeII: with PREFLIP1 and its barrier the invariant holds.
func TestFlipTypeII(t *testing.T) {
	flip(t, true)
}
