package yrc

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

// run sets up the heap: the mutator's stack holds A, whose seq's payload
// holds B; X and Y form a garbage cycle; A and X were decremented (each lost
// a reference) before the test, so they are candidate roots. One collector
// goroutine collects cycles while one mutator assigns A's seq a payload
// holding C. Then a last collection and the checks.
func run(t *testing.T, lock Lock, overflow Overflow, queueSize int) {
	a, b, c, x, y := &Obj{Name: "A"}, &Obj{Name: "B"}, &Obj{Name: "C"}, &Obj{Name: "X"}, &Obj{Name: "Y"}
	h := NewHeap(lock, overflow, queueSize, a, b, c, x, y)
	SetSeq(a, NewPayload(b))
	SetField(x, y)
	SetField(y, x)
	h.Setup(a, 2, 1) // its stack root, and the reference it lost
	h.Setup(b, 1, 0) // A's payload
	h.Setup(x, 2, 0) // Y, and the reference it lost
	h.Setup(y, 1, 0) // X
	h.Decremented(a)
	h.Decremented(x)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.CollectCycles() }()
	go func() { defer wg.Done(); h.SeqAssign(a, NewPayload(c)) }()
	wg.Wait()
	h.Quiesce()
	// One line per invariant: xbtest tells findings apart by position.
	if v := h.Violation("SeqPayloadSafety"); v != "" {
		t.Error(v)
	}
	if v := h.Violation("Safety"); v != "" {
		t.Error(v)
	}
	if v := h.Violation("CycleInvariant"); v != "" {
		t.Error(v)
	}
	if v := h.Violation("RCInvariant"); v != "" {
		t.Error(v)
	}
	for _, o := range []*Obj{x, y, b} {
		if !o.freed {
			t.Errorf("%s is garbage but was not freed", o.Name)
		}
	}
}

// TestRWLock is the fix: the collector takes the write lock, seq
// mutations the read lock.
func TestRWLock(t *testing.T) {
	run(t, RWLock, Drain, 8)
}

// TestPlainLock is YRC before the fix: seq mutations take no lock while
// the collector traces under its Mutex.
func TestPlainLock(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, PlainLock, Collect, 8)
}

// TestPlainLockBoth: seq mutations take the collector's Mutex.
func TestPlainLockBoth(t *testing.T) {
	run(t, PlainLockBoth, Collect, 8)
}

// TestOverflowCollect: the seq assignment's decrement fills the stripe's
// queue, and the overflow runs a collection, which wants the write lock
// while the assignment holds the read lock.
func TestOverflowCollect(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, RWLock, Collect, 3)
}

// TestOverflowDrain is the header's fix: the overflow drains the queues
// without the write lock.
func TestOverflowDrain(t *testing.T) {
	run(t, RWLock, Drain, 3)
}
