package sched

import (
	"reflect"
	"testing"
)

// Fig 2.12's intersection: a conflict needs a write on one side; reads
// alone never conflict; overlapping byte ranges of different sizes do.
func TestRWSetIntersects(t *testing.T) {
	set := func(acc ...Access) *RWSet {
		s := &RWSet{}
		for _, a := range acc {
			s.Add(a.Addr, a.Size, a.Write)
		}
		return s
	}
	for _, c := range []struct {
		name string
		a, b *RWSet
		want bool
	}{
		{"read-read", set(Access{0x1000, 8, false}), set(Access{0x1000, 8, false}), false},
		{"read-write", set(Access{0x1000, 8, false}), set(Access{0x1000, 8, true}), true},
		{"write-read", set(Access{0x1000, 8, true}), set(Access{0x1000, 8, false}), true},
		{"disjoint writes", set(Access{0x1000, 8, true}), set(Access{0x1008, 8, true}), false},
		{"overlapping sizes", set(Access{0x1000, 8, true}), set(Access{0x1004, 1, false}), true},
		{"empty", set(), set(Access{0x1000, 8, true}), false},
	} {
		if got := c.a.Intersects(c.b); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := c.b.Intersects(c.a); got != c.want {
			t.Errorf("%s, reversed: %v, want %v", c.name, got, c.want)
		}
	}
	// Past the linear-search limit the set indexes its accesses; a write
	// after a read of the same location still counts as a write.
	big := &RWSet{}
	for i := range uintptr(3 * linearLimit) {
		big.Add(0x2000+8*i, 8, false)
	}
	big.Add(0x2000, 8, true)
	if !big.Intersects(set(Access{0x2000, 8, false})) || big.Intersects(set(Access{0x2008, 8, false})) {
		t.Error("an indexed set lost a write or invented one")
	}
	big.Reset()
	if big.Intersects(set(Access{0x2000, 8, true})) {
		t.Error("a reset set still intersects")
	}
}

func TestTSet(t *testing.T) {
	var s TSet
	if !s.Empty() || s.First() != -1 {
		t.Fatalf("empty set: empty %v, first %d", s.Empty(), s.First())
	}
	for _, i := range []int32{70, 3, 130} {
		s.Add(i)
	}
	var got []int32
	s.Each(func(i int32) { got = append(got, i) })
	if !reflect.DeepEqual(got, []int32{3, 70, 130}) || s.First() != 3 || !s.Has(70) || s.Has(4) {
		t.Errorf("set %v, first %d", got, s.First())
	}
	if !s.HasOther(3) {
		t.Error("HasOther(3) with 70 and 130 in the set")
	}
	c := s.Clone()
	s.Remove(70)
	s.Remove(130)
	if s.HasOther(3) || !c.Has(70) {
		t.Error("Remove changed the clone, or HasOther sees removed members")
	}
}

// What a forked child hands back decodes to what it encoded, and a
// truncated hand-over is an error, not a silent zero.
func TestEncodingRoundTrip(t *testing.T) {
	path := []Decision{{Thread: 0, End: 7, Choices: []int32{1, 0}}, {Thread: 2, End: 19, Mid: true}, {Thread: 1, End: 23, Tick: true}}
	var ts TSet
	ts.Add(1)
	ts.Add(66)
	rw := &CanonRW{Acc: []CanonAccess{{Kind: RegionGlobal, Addr: 0x4000, Size: 8, Write: true}, {Kind: RegionHeap, Key: HeapKey{}, Off: 16, Size: 4}}, UnknownR: true}
	var e Enc
	e.Decisions(path)
	e.TSet(&ts)
	e.CanonRW(rw)
	e.Strs([]string{"a", ""})
	e.Int(-5)
	d := &Dec{B: e.B}
	gotPath, gotTS, gotRW, gotStrs, gotInt := d.Decisions(), d.TSet(), d.CanonRW(), d.Strs(), d.Int()
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	if !reflect.DeepEqual(gotPath, path) || !gotTS.Has(66) || !gotTS.Has(1) || gotTS.Has(2) || !reflect.DeepEqual(gotRW, rw) || !reflect.DeepEqual(gotStrs, []string{"a", ""}) || gotInt != -5 {
		t.Errorf("decoded %+v %v %+v %q %d", gotPath, gotTS, gotRW, gotStrs, gotInt)
	}
	short := &Dec{B: e.B[:len(e.B)/2]}
	short.Decisions()
	short.TSet()
	short.CanonRW()
	short.Strs()
	short.Int()
	if short.Err == nil {
		t.Error("a truncated hand-over decoded without an error")
	}
}
