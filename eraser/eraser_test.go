package eraser

import "testing"

const x = uintptr(0x1000)

func TestStateMachine(t *testing.T) {
	d := New(Lockset)
	d.Start(-1, 0)
	d.Start(0, 1)
	want := func(s State) {
		t.Helper()
		if got := d.pool[d.locs[x]].state; got != s {
			t.Fatalf("state %v, want %v", got, s)
		}
	}
	d.Acquire(0, 7, true)
	d.Access(0, x, 8, true, false, 1)
	want(Exclusive)
	d.Access(0, x, 8, false, false, 2)
	want(Exclusive)
	d.Access(1, x, 8, false, false, 3) // read by another goroutine, no lock
	want(Shared)
	if len(d.pool[d.locs[x]].cset) != 0 {
		t.Fatalf("cset %v, want empty", d.pool[d.locs[x]].cset)
	}
	if r := d.Access(0, x, 8, true, false, 4); len(r) != 1 {
		t.Fatalf("races %v, want one", r)
	}
	want(SharedModified)
	if r := d.Access(1, x, 8, true, false, 5); len(r) != 0 {
		t.Fatalf("a location is reported once per execution, got %v", r)
	}
}

func TestLockProtects(t *testing.T) {
	for _, m := range []Mode{Lockset, Hybrid} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		for _, g := range []int32{1, 2, 1, 2} {
			d.Acquire(g, 3, true)
			if r := d.Access(g, x, 8, true, false, uint32(g)); len(r) != 0 {
				t.Fatalf("%v: race under a common lock: %v", m, r)
			}
			d.Release(g, 3)
		}
		d.Acquire(1, 4, true)
		r := d.Access(1, x, 8, true, false, 9)
		if len(r) != 1 || r[0].Prev.Thread != 2 || r[0].Cur.Pos != 9 || len(r[0].Cur.Locks) != 1 || r[0].Cur.Locks[0] != 4 || r[0].Prev.Locks[0] != 3 {
			t.Fatalf("%v: got %+v, want a race of T1 (lock 4) with T2's write under lock 3", m, r)
		}
	}
}

func TestHandOverByChannel(t *testing.T) {
	run := func(m Mode) int {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Access(0, x, 8, true, false, 1)          // producer fills the buffer
		d.Publish(0, SyncKey{Addr: 0x99, Role: 1}) // sends it
		d.Observe(1, SyncKey{Addr: 0x99, Role: 1}) // consumer receives it
		n := len(d.Access(1, x, 8, true, false, 2))
		n += len(d.Access(1, x, 8, false, false, 3))
		return n
	}
	if n := run(Hybrid); n != 0 {
		t.Errorf("hybrid: %d races on a buffer handed over a channel", n)
	}
	if n := run(Lockset); n != 1 {
		t.Errorf("lockset: %d races, want 1 (pure Eraser does not know channels)", n)
	}
}

func TestUnorderedAfterHandOver(t *testing.T) {
	d := New(Hybrid)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Access(0, x, 8, true, false, 1)
	d.Publish(0, SyncKey{Addr: 0x99})
	d.Observe(1, SyncKey{Addr: 0x99})
	d.Access(1, x, 8, true, false, 2)
	// The producer writes again after sending: unordered with T1's write.
	r := d.Access(0, x, 8, true, false, 3)
	if len(r) != 1 || r[0].Prev.Thread != 1 || r[0].Prev.Pos != 2 || r[0].Cur.Pos != 3 {
		t.Fatalf("got %+v, want T0's write at 3 racing T1's write at 2", r)
	}
}

func TestStartOrders(t *testing.T) {
	d := New(Hybrid)
	d.Start(-1, 0)
	d.Access(0, x, 8, true, false, 1)
	d.Start(0, 1)
	if r := d.Access(1, x, 8, true, false, 2); len(r) != 0 {
		t.Fatalf("a write before go races the new goroutine: %v", r)
	}
	if r := d.Access(0, x, 8, false, false, 3); len(r) != 1 {
		t.Fatalf("got %v, want the parent's read after go to race the child's write", r)
	}
}

func TestEdgeOrders(t *testing.T) {
	d := New(Hybrid)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Access(1, x, 8, true, false, 1)
	d.Edge(1, 0) // T1 wakes T0 (the last Done, a send to a parked receiver)
	if r := d.Access(0, x, 8, false, false, 2); len(r) != 0 {
		t.Fatalf("%v", r)
	}
}

func TestReadLockDoesNotProtectAWrite(t *testing.T) {
	for _, m := range []Mode{Lockset, Hybrid} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		d.Acquire(1, 5, false)
		d.Access(1, x, 8, false, false, 1)
		d.Access(1, x, 8, true, false, 2) // counter++ under RLock
		d.Release(1, 5)
		d.Acquire(2, 5, false)
		d.Access(2, x, 8, false, false, 3)
		r := d.Access(2, x, 8, true, false, 4)
		if len(r) != 1 {
			t.Fatalf("%v: got %v, want a race: writes under a read lock", m, r)
		}
	}
	// Readers under RLock and a writer under Lock do not race.
	d := New(Lockset)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	d.Acquire(1, 5, true)
	d.Access(1, x, 8, true, false, 1)
	d.Release(1, 5)
	for _, g := range []int32{2, 1, 2} {
		d.Acquire(g, 5, false)
		if r := d.Access(g, x, 8, false, false, 2); len(r) != 0 {
			t.Fatalf("readers race: %v", r)
		}
		d.Release(g, 5)
	}
	d.Acquire(1, 5, true)
	if r := d.Access(1, x, 8, true, false, 3); len(r) != 0 {
		t.Fatalf("writer under Lock races readers under RLock: %v", r)
	}
}

func TestAtomics(t *testing.T) {
	for _, m := range []Mode{Lockset, Hybrid} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		k := SyncKey{Addr: x}
		atomicAdd := func(g int32, pos uint32) []Race {
			d.Observe(g, k)
			r := d.Access(g, x, 8, true, true, pos)
			d.Publish(g, k)
			return r
		}
		if r := atomicAdd(1, 1); len(r) != 0 {
			t.Fatal(r)
		}
		if r := atomicAdd(2, 2); len(r) != 0 {
			t.Fatalf("%v: two atomic adds race: %v", m, r)
		}
		r := d.Access(1, x, 8, true, false, 3) // a plain write
		if len(r) != 1 || !r[0].Prev.Atomic || r[0].Cur.Atomic {
			t.Fatalf("%v: got %+v, want the plain write to race the atomic add", m, r)
		}
	}
}

func TestLargeAccessesSplitIntoWords(t *testing.T) {
	d := New(Hybrid)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Access(1, x+16, 8, true, false, 1)     // a field
	r := d.Access(0, x, 32, false, false, 2) // a copy of the whole struct
	if len(r) != 1 || r[0].Addr != x+16 {
		t.Fatalf("got %+v, want a race on the word at x+16", r)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"off", "hybrid", "lockset"} {
		if m, err := ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error("ParseMode(on) succeeded")
	}
}
