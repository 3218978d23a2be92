package birrell

import (
	"os"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test of a known bug: run it under xbtest (go run ./cmd/xbtest ./corpus/gc/...)")
	}
}

// A scenario is an initial state and the applications' scripts: each
// stays within the bound of 3 processes, 1 reference, at most 3 copies and
// 2 drops by processes other than the owner.
type scenario struct {
	holders   []Proc // besides the owner, OK and in its permanent table
	script    map[Proc][]Action
	onReceipt map[Proc][]Action
}

var (
	// cleaning (B1's and §5.1's trace): A drops the reference, so its
	// clean call may be in transit when B sends it the reference again.
	cleaning = scenario{
		holders: []Proc{A, B},
		script:  map[Proc][]Action{O: {Drop}, A: {Drop}, B: {CopyTo(A), Drop}},
	}
	// fromOwner (B2's trace): the owner sends the reference to A and
	// drops it; A drops it once it has it.
	fromOwner = scenario{
		script:    map[Proc][]Action{O: {CopyTo(A), Drop}},
		onReceipt: map[Proc][]Action{A: {Drop}},
	}
	// thirdParty (B3's trace): A sends the reference to B and drops it at
	// once; B drops it once it has it.
	thirdParty = scenario{
		holders:   []Proc{A},
		script:    map[Proc][]Action{O: {Drop}, A: {CopyTo(B), Drop}},
		onReceipt: map[Proc][]Action{B: {Drop}},
	}
	// twoSenders (B5's trace): the owner and A both send the reference
	// to B; B drops it once it has it.
	twoSenders = scenario{
		holders:   []Proc{A},
		script:    map[Proc][]Action{O: {CopyTo(B), Drop}, A: {CopyTo(B), Drop}},
		onReceipt: map[Proc][]Action{B: {Drop}},
	}
	// toOwner (B6's trace): A sends the reference back to the owner and
	// drops it; the owner drops its own.
	toOwner = scenario{
		holders: []Proc{A},
		script:  map[Proc][]Action{O: {Drop}, A: {CopyTo(O), Drop}},
	}
	// parallel: A sends the reference to B twice (two copies in transit
	// at once, told apart by their identifiers: §2.4 (d)) and drops it;
	// B sends it back to the owner once it has it, and drops it: 3
	// copies, 2 drops.
	parallel = scenario{
		holders:   []Proc{A},
		script:    map[Proc][]Action{O: {Drop}, A: {CopyTo(B), CopyTo(B), Drop}},
		onReceipt: map[Proc][]Action{B: {CopyTo(O), Drop}},
	}
	// passOn (naive counting, Fig. 1): A sends the reference to B, which
	// drops it at once; A keeps its own.
	passOn = scenario{
		holders:   []Proc{A},
		script:    map[Proc][]Action{O: {Drop}, A: {CopyTo(B)}},
		onReceipt: map[Proc][]Action{B: {Drop}},
	}
)

func run(t *testing.T, v Variant, fifo bool, s scenario) {
	w := NewWorld(v, fifo, s.holders...)
	for p, as := range s.onReceipt {
		w.OnReceipt(p, as...)
	}
	w.Run(s.script)
	// One line per property: xbtest tells findings apart by position.
	if v := w.Violation("safety"); v != "" {
		t.Errorf("safety (Definition 12): %s", v)
	}
	if v := w.Violation("use after reclaim"); v != "" {
		t.Errorf("use after reclaim: %s", v)
	}
	if v := w.Violation("lemma"); v != "" {
		t.Errorf("invariant of §4.1: %s", v)
	}
	if v := w.Violation("liveness"); v != "" {
		t.Errorf("liveness (Theorem 21): %s", v)
	}
}

// The base algorithm on every scenario, on bags (which include every
// order FIFO links allow) and on FIFO links.

func TestBaseCleaningBag(t *testing.T)   { run(t, Base, false, cleaning) }
func TestBaseCleaningFIFO(t *testing.T)  { run(t, Base, true, cleaning) }
func TestBaseFromOwnerBag(t *testing.T)  { run(t, Base, false, fromOwner) }
func TestBaseThirdPartyBag(t *testing.T) { run(t, Base, false, thirdParty) }
func TestBaseTwoSendersBag(t *testing.T) { run(t, Base, false, twoSenders) }
func TestBaseToOwnerBag(t *testing.T)    { run(t, Base, false, toOwner) }
func TestBasePassOnBag(t *testing.T)     { run(t, Base, false, passOn) }
func TestBaseParallelBag(t *testing.T)   { run(t, Base, false, parallel) }

// TestNoCcitnilBag (B1): a dirty call overtakes the clean call in transit;
// the late clean removes A from the owner's table while A is OK.
func TestNoCcitnilBag(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NoCcitnil, false, cleaning)
}

// TestNoCcitnilFIFO: on a FIFO link the clean call cannot be overtaken.
func TestNoCcitnilFIFO(t *testing.T) { run(t, NoCcitnil, true, cleaning) }

// TestEarlyCopyAck (B2): the owner's transient entry goes before A's
// dirty call arrives.
func TestEarlyCopyAck(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, EarlyCopyAck, false, fromOwner)
}

// TestNoTdirtyResults (B3): A's clean call goes while its copy to B is in
// transit.
func TestNoTdirtyResults(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NoTdirtyResults, false, thirdParty)
}

// TestFIFOVariantBag: §5.1's algorithm on bags: A's dirty call overtakes
// its clean call.
func TestFIFOVariantBag(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, FIFOVariant, false, cleaning)
}

// TestFIFOVariantFIFO: §5.1's algorithm on the FIFO links it requires.
func TestFIFOVariantFIFO(t *testing.T) { run(t, FIFOVariant, true, cleaning) }

// TestSenderIsOwnerBag (B5): B's clean call removes the entry the owner
// made for its copy in transit.
func TestSenderIsOwnerBag(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, SenderIsOwner, false, twoSenders)
}

// TestSenderIsOwnerFIFO: B5 on FIFO links.
func TestSenderIsOwnerFIFO(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, SenderIsOwner, true, twoSenders)
}

// TestReceiverIsOwnerBag (B6): A's clean call overtakes its copy to the
// owner.
func TestReceiverIsOwnerBag(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, ReceiverIsOwner, false, toOwner)
}

// TestReceiverIsOwnerFIFO: on a FIFO link the clean cannot overtake the
// copy.
func TestReceiverIsOwnerFIFO(t *testing.T) { run(t, ReceiverIsOwner, true, toOwner) }

// TestNaiveRC: B's decrement reaches the owner before A's increment.
func TestNaiveRC(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NaiveRC, false, passOn)
}

// TestNaiveRCFIFO: FIFO links do not help: the increment and the
// decrement travel on different links.
func TestNaiveRCFIFO(t *testing.T) {
	skipUnlessXBTest(t)
	run(t, NaiveRC, true, passOn)
}
