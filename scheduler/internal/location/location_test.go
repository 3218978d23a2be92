package location

import (
	"testing"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// The index keeps no object alive, so an address may name a dead object
// and then a new one: a new object registered where one was means that one
// is dead, and after a collection an address registered before it is in
// doubt (unknown), never the old object's name.
func TestAddressReusedAfterACollection(t *testing.T) {
	var cycles uint64
	var h Index
	h.Reset(func() uint64 { return cycles })
	h.Refresh()
	buf := make([]byte, 64)
	p := unsafe.Pointer(&buf[0])
	a := sched.HeapKey{Thread: 0, Seq: 0}
	b := sched.HeapKey{Thread: 0, Seq: 1}
	c := sched.HeapKey{Thread: 1, Seq: 0}
	name := func(addr uintptr) (sched.RegionKind, sched.HeapKey) {
		k, r := h.Classify(addr)
		if r == nil {
			return k, sched.HeapKey{}
		}
		return k, r.Key
	}

	if h.Add(p, 32, a, nil, true) {
		t.Fatal("a first object reported as reusing memory")
	}
	// The same array registered again (an append that did not grow it):
	// the same object, with no collection in between.
	if h.Add(p, 32, b, nil, false) {
		t.Fatal("an array registered again reported as a new object")
	}
	if k, key := name(uintptr(p) + 8); k != sched.RegionHeap || key != a {
		t.Fatalf("after an append in place: %v %v, want the first object's name", k, key)
	}
	// A new object at the address (the first one was collected).
	if !h.Add(p, 16, c, nil, true) {
		t.Fatal("a new object over a registered one not reported")
	}
	if k, key := name(uintptr(p) + 8); k != sched.RegionHeap || key != c {
		t.Fatalf("the new object: %v %v, want its own name", k, key)
	}
	if k, _ := name(uintptr(p) + 24); k != sched.RegionUnknown {
		t.Fatalf("the dead object's other bytes: %v, want unknown", k)
	}
	// Uncanon maps a stored set that names the dead object onto its
	// address still (conservative: it conflicts with whatever lives there).
	s := h.Uncanon(&sched.CanonRW{Acc: []sched.CanonAccess{{Kind: sched.RegionHeap, Key: a, Off: 24, Size: 8}}})
	if len(s.Acc) != 1 || s.Acc[0].Addr != uintptr(p)+24 {
		t.Fatalf("Uncanon of the dead object: %+v", s.Acc)
	}

	// A collection completes: what was registered before may be dead and
	// its memory another object's that the index did not see allocated.
	cycles++
	h.Refresh() // as Canon does
	d := sched.HeapKey{Thread: 1, Seq: 1}
	q := unsafe.Pointer(&buf[32])
	h.Add(q, 32, d, nil, true)
	if k, key := name(uintptr(q)); k != sched.RegionHeap || key != d {
		t.Fatalf("an object registered after the collection: %v %v", k, key)
	}
	if k, _ := name(uintptr(p)); k != sched.RegionUnknown {
		t.Fatalf("an object registered before the collection: %v, want unknown", k)
	}
	c2 := h.Canon(&sched.RWSet{Acc: []sched.Access{{Addr: uintptr(p), Size: 8, Write: true}}}, func(sched.HeapKey) bool { return false })
	if len(c2.Acc) != 0 || !c2.UnknownW {
		t.Fatalf("Canon of memory in doubt: %+v", c2)
	}
	// An array registered again after a collection may be a new one where a
	// dead one was: in doubt, not reported as reused (the detection's
	// history stays, and a race it completes is confirmed by replay).
	cycles++
	if h.Add(q, 32, sched.HeapKey{Thread: 1, Seq: 2}, nil, false) {
		t.Fatal("an ambiguous registration reported as reused")
	}
	h.Refresh()
	if k, _ := name(uintptr(q)); k != sched.RegionUnknown {
		t.Fatalf("an array registered again after a collection: %v, want unknown", k)
	}
	if !h.Registered(uintptr(q)) {
		t.Fatal("memory registered in this execution not reported as such")
	}
}
