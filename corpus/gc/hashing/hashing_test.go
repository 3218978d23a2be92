package hashing

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

// run runs the collector for two GC cycles and the mutators, each hashing
// the object calls times, then hashes it once more.
func run(t *testing.T, metaLock bool, mutators, calls int) {
	w := NewWorld(mutators, metaLock)
	var wg sync.WaitGroup
	wg.Add(1 + mutators)
	go func() { defer wg.Done(); w.Collector(2) }()
	for id := range mutators {
		go func() { defer wg.Done(); w.Mutator(id, calls) }()
	}
	wg.Wait()
	w.Final()
	if v := w.Violation(); v != "" {
		t.Errorf("consistency: %s", v)
	}
}

// TestMetaLock: with the meta-lock the hash code never changes.
func TestMetaLock(t *testing.T) {
	run(t, true, 1, 2)
}

// TestNoMetaLock: without it, the collector copies the header UNHASHED
// while a mutator hashes the fromspace copy.
func TestNoMetaLock(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, false, 1, 2)
}
