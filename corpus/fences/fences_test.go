package fences

import (
	"os"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest -memory pso -cas relaxed ./corpus/fences)")
	}
}

func TestMPRelaxedCAS(t *testing.T) {
	skipUnlessXBTest(t)
	if flag, data := MPRelaxedCAS(); flag == 1 && data != 1 {
		t.Errorf("the reader saw the CASed flag 1 but data %d, want 1", data)
	}
}

func TestMPReleaseFence(t *testing.T) {
	skipUnlessXBTest(t)
	if flag, data := MPReleaseFence(); flag == 1 && data != 1 {
		t.Errorf("the reader saw the flag 1 after the release fence but data %d, want 1", data)
	}
}

func TestSBReleaseFence(t *testing.T) {
	skipUnlessXBTest(t)
	if r0, r1 := SBReleaseFence(); r0 == 0 && r1 == 0 {
		t.Errorf("both loads read 0 (r0=%d r1=%d): a release fence does not order a store before a later load", r0, r1)
	}
}

func TestSBFence(t *testing.T) {
	skipUnlessXBTest(t)
	if r0, r1 := SBFence(); r0 == 0 && r1 == 0 {
		t.Errorf("both loads read 0 (r0=%d r1=%d) across full fences", r0, r1)
	}
}

func TestSameAddressCAS(t *testing.T) {
	skipUnlessXBTest(t)
	if !SameAddressCAS() {
		t.Error("CAS(x, 1, 2) after the same goroutine's x = 1 failed: it read a value older than its own store")
	}
}

func TestLostUpdate(t *testing.T) {
	skipUnlessXBTest(t)
	if n := LostUpdate(); n != 2 {
		t.Errorf("counter = %d after two increments, want 2", n)
	}
}

func TestLostUpdateUnmarked(t *testing.T) {
	skipUnlessXBTest(t)
	if n := LostUpdateUnmarked(); n != 2 {
		t.Errorf("counter = %d after two increments, want 2", n)
	}
}

func TestOwnStoresThroughLibrary(t *testing.T) {
	skipUnlessXBTest(t)
	if index, copied, text := OwnStoresThroughLibrary(); index != 1 || copied != 9 || text != "x" {
		t.Errorf("the goroutine missed its own stores through code not rewritten: slices.Index %d (want 1), copy %d (want 9), string %q (want \"x\")", index, copied, text)
	}
}
