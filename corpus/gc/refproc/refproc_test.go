package refproc

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

func run(t *testing.T, w *World, actions ...Action) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); w.Collector() }()
	go func() { defer wg.Done(); w.Mutator(actions...) }()
	wg.Wait()
	// One line per property: xbtest tells findings apart by position.
	if v := w.Violation("P1"); v != "" {
		t.Errorf("safety: %s", v)
	}
	if v := w.Violation("P2"); v != "" {
		t.Errorf("consistency: %s", v)
	}
	if v := w.Violation("P3"); v != "" {
		t.Errorf("termination: %s", v)
	}
}

// TestDeletionGetDrop: a get and a drop cannot stall the deletion-barrier
// collector (P3), nor break P1 and P2.
func TestDeletionGetDrop(t *testing.T) {
	run(t, NewWorld(Config{Barrier: Deletion}), Get(0), Drop)
}

// TestDeletionGetNext: P1 and P2 hold for a mutator that gets o2, then o0,
// then loads o0.next.
func TestDeletionGetNext(t *testing.T) {
	run(t, NewWorld(Config{Barrier: Deletion}), Get(2), Get(0), Next)
}

// TestDeletionAllCases: every case of Algorithm 8: get on r1 (which may
// return null once r1 is cleared), get on r0 and o0.next (P2: o1 must not
// be seen if r1's get returned null), get on r2, drop.
func TestDeletionAllCases(t *testing.T) {
	run(t, NewWorld(Config{Barrier: Deletion}), Get(1), Get(0), Next, Get(2), Drop)
}

// TestInsertionGetDrop: the insertion-barrier collector's loop need not
// end (P3).
func TestInsertionGetDrop(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NewWorld(Config{Barrier: Insertion}), Get(0), Drop)
}

// TestDeletionNoHandshake: without the handshake in the TRACING loop a
// get of o0 that read REPEAT ends after the CAS to CLEARING, and o0.next is
// reclaimed under the mutator (P1); and a get that keeps meeting TRACING
// keeps the loop going (P3).
func TestDeletionNoHandshake(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NewWorld(Config{Barrier: Deletion, NoLoopHandshake: true}), Get(0), Next)
}

// TestDeletionAsPrinted: Algorithm 6b as printed sets TRACING only in its
// loop, after the root scan that makes the mutator black: a get in NORMAL
// returns o0 unshaded, the mutator loads o0.next, and o1 is reclaimed.
func TestDeletionAsPrinted(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NewWorld(Config{Barrier: Deletion, AsPrinted: true}), Get(2), Get(0), Next)
}
