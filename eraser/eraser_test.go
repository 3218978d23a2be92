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
	d.Hold(0, 7, true)
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

// lock and unlock are what the scheduler reports of a lock operation: the
// lockset's hold and the happens-before edge.
func lock(d *Detector, g, l int32, write bool) {
	d.Hold(g, l, write)
	d.Locked(g, l, write)
}

func unlock(d *Detector, g, l int32, write bool) {
	d.Unlocked(g, l, write)
	d.Unhold(g, l)
}

func TestLockProtects(t *testing.T) {
	for _, m := range []Mode{Lockset, HB} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		for _, g := range []int32{1, 2, 1, 2} {
			lock(d, g, 3, true)
			if r := d.Access(g, x, 8, true, false, uint32(g)); len(r) != 0 {
				t.Fatalf("%v: race under a common lock: %v", m, r)
			}
			unlock(d, g, 3, true)
		}
		lock(d, 1, 4, true)
		r := d.Access(1, x, 8, true, false, 9)
		if len(r) != 1 || r[0].Prev.Thread != 2 || r[0].Cur.Pos != 9 || len(r[0].Cur.Locks) != 1 || r[0].Cur.Locks[0] != 4 || r[0].Prev.Locks[0] != 3 {
			t.Fatalf("%v: got %+v, want a race of T1 (lock 4) with T2's write under lock 3", m, r)
		}
	}
}

// TestDifferentLocksRace: after set-up, one goroutine reads under lock A
// and another writes under lock B, once each. Nothing orders them. Pure
// Eraser misses it (the location is exclusive to its first goroutine until
// a second one touches it); happens-before reports it.
func TestDifferentLocksRace(t *testing.T) {
	for _, m := range []Mode{HB, Lockset} {
		d := New(m)
		// The set-up before the goroutines start is not seen: memory
		// hooks start with the second goroutine.
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		lock(d, 1, 10, true)
		r := d.Access(1, x, 8, false, false, 2)
		unlock(d, 1, 10, true)
		lock(d, 2, 11, true)
		r = append(r, d.Access(2, x, 8, true, false, 3)...)
		unlock(d, 2, 11, true)
		want := 1
		if m == Lockset {
			want = 0
		}
		if len(r) != want {
			t.Errorf("%v: %d races %+v, want %d", m, len(r), r, want)
		}
		if m == HB && (r[0].Cur.Pos != 3 || r[0].Prev.Pos != 2) {
			t.Errorf("hb: got %+v, want the write at 3 racing the read at 2", r[0])
		}
	}
}

// TestMutexHandOver is x/sync/semaphore's shape: a goroutine writes data
// without a lock, then releases a lock another goroutine acquires before
// reading the data. The lock orders them: no race, though no lock protects
// the data (a location the lockset lists as unprotected).
func TestMutexHandOver(t *testing.T) {
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	d.Access(1, x, 8, true, false, 1) // running = true
	lock(d, 1, 5, true)
	unlock(d, 1, 5, true)
	lock(d, 2, 5, true)
	unlock(d, 2, 5, true)
	if r := d.Access(2, x, 8, false, false, 2); len(r) != 0 {
		t.Fatalf("a hand-over through a mutex is reported: %+v", r)
	}
	if r := d.Access(2, x, 8, true, false, 3); len(r) != 0 {
		t.Fatalf("a hand-over through a mutex is reported: %+v", r)
	}
	u := d.Unprotected()
	if len(u) != 1 || u[0].Addr != x || u[0].Cur.Thread != 2 || u[0].Prev.Thread != 1 {
		t.Fatalf("unprotected %+v, want x, accessed by T2 after T1", u)
	}
	// Without the lock the same accesses race.
	d = New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	d.Access(1, x, 8, true, false, 1)
	if r := d.Access(2, x, 8, false, false, 2); len(r) != 1 {
		t.Fatalf("got %+v, want a race", r)
	}
}

// TestRWMutexEdges: the memory model's rules for sync.RWMutex. An Unlock
// orders later RLocks; an RUnlock orders the next Lock; two readers are
// not ordered by their read locks.
func TestRWMutexEdges(t *testing.T) {
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	d.Start(0, 3)
	lock(d, 1, 7, true)
	d.Access(1, x, 8, true, false, 1)
	unlock(d, 1, 7, true)
	lock(d, 2, 7, false)
	if r := d.Access(2, x, 8, false, false, 2); len(r) != 0 {
		t.Fatalf("Unlock does not order RLock: %+v", r)
	}
	d.Access(2, x+8, 8, false, false, 3) // a read of another word under the read lock
	unlock(d, 2, 7, false)
	lock(d, 3, 7, true)
	if r := d.Access(3, x+8, 8, true, false, 4); len(r) != 0 {
		t.Fatalf("RUnlock does not order Lock: %+v", r)
	}
	unlock(d, 3, 7, true)

	d = New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	lock(d, 1, 7, false)
	d.Access(1, x, 8, true, false, 1) // a write under a read lock
	unlock(d, 1, 7, false)
	lock(d, 2, 7, false)
	if r := d.Access(2, x, 8, false, false, 2); len(r) != 1 {
		t.Fatalf("readers ordered by their read locks: %+v", r)
	}
}

// TestChannelClocks: a value's clock, kept while it sits in a buffer, is
// joined by its receiver only.
func TestChannelClocks(t *testing.T) {
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Start(0, 2)
	d.Access(1, x, 8, true, false, 1)
	c1 := d.Snapshot(1) // T1 sends
	d.Access(2, x+8, 8, true, false, 2)
	_ = d.Snapshot(2) // T2 sends
	d.Join(0, c1)     // T0 receives T1's value
	if r := d.Access(0, x, 8, false, false, 3); len(r) != 0 {
		t.Fatalf("the receive is not ordered after its send: %+v", r)
	}
	if r := d.Access(0, x+8, 8, false, false, 4); len(r) != 1 {
		t.Fatalf("the receive is ordered after another send: %+v", r)
	}
	var c Clock
	d.Join(0, c) // the zero Clock orders nothing
	d.ReleaseInto(1, &c)
	d.Access(1, x+16, 8, true, false, 5)
	d.Join(2, c)
	if r := d.Access(2, x+16, 8, true, false, 6); len(r) != 1 {
		t.Fatalf("ReleaseInto orders what T1 did after it: %+v", r)
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
	if n := run(HB); n != 0 {
		t.Errorf("hybrid: %d races on a buffer handed over a channel", n)
	}
	if n := run(Lockset); n != 1 {
		t.Errorf("lockset: %d races, want 1 (pure Eraser does not know channels)", n)
	}
}

func TestUnorderedAfterHandOver(t *testing.T) {
	d := New(HB)
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
	d := New(HB)
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
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Access(1, x, 8, true, false, 1)
	d.Edge(1, 0) // T1 wakes T0 (the last Done, a send to a parked receiver)
	if r := d.Access(0, x, 8, false, false, 2); len(r) != 0 {
		t.Fatalf("%v", r)
	}
}

func TestReadLockDoesNotProtectAWrite(t *testing.T) {
	for _, m := range []Mode{Lockset, HB} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		lock(d, 1, 5, false)
		d.Access(1, x, 8, false, false, 1)
		d.Access(1, x, 8, true, false, 2) // counter++ under RLock
		unlock(d, 1, 5, false)
		lock(d, 2, 5, false)
		r := d.Access(2, x, 8, false, false, 3)
		r = append(r, d.Access(2, x, 8, true, false, 4)...)
		if len(r) != 1 {
			t.Fatalf("%v: got %v, want a race: writes under a read lock", m, r)
		}
	}
	// Readers under RLock and a writer under Lock do not race.
	for _, m := range []Mode{Lockset, HB} {
		d := New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		lock(d, 1, 5, true)
		d.Access(1, x, 8, true, false, 1)
		unlock(d, 1, 5, true)
		for _, g := range []int32{2, 1, 2} {
			lock(d, g, 5, false)
			if r := d.Access(g, x, 8, false, false, 2); len(r) != 0 {
				t.Fatalf("%v: readers race: %v", m, r)
			}
			unlock(d, g, 5, false)
		}
		lock(d, 1, 5, true)
		if r := d.Access(1, x, 8, true, false, 3); len(r) != 0 {
			t.Fatalf("%v: writer under Lock races readers under RLock: %v", m, r)
		}
	}
}

func TestAtomics(t *testing.T) {
	for _, m := range []Mode{Lockset, HB} {
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
		atomicLoad := func(g int32, pos uint32) []Race {
			d.Observe(g, k)
			return d.Access(g, x, 8, false, true, pos)
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
		if m != HB {
			continue
		}
		// An atomic store orders the loads that observe it; a load orders
		// nothing (it has no effect to observe).
		d = New(m)
		d.Start(-1, 0)
		d.Start(0, 1)
		d.Start(0, 2)
		d.Access(1, x+8, 8, true, false, 1) // data
		atomicAdd(1, 2)                     // flag = 1
		atomicLoad(2, 3)                    // sees flag == 1
		if r := d.Access(2, x+8, 8, false, false, 4); len(r) != 0 {
			t.Fatalf("the store does not order the load that observed it: %+v", r)
		}
		d.Access(2, x+16, 8, true, false, 5)
		atomicLoad(2, 6)
		atomicLoad(1, 7)
		if r := d.Access(1, x+16, 8, false, false, 8); len(r) != 1 {
			t.Fatalf("a load orders a later load: %+v", r)
		}
	}
}

func TestLargeAccessesSplitIntoWords(t *testing.T) {
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	d.Access(1, x+16, 8, true, false, 1)     // a field
	r := d.Access(0, x, 32, false, false, 2) // a copy of the whole struct
	if len(r) != 1 || r[0].Addr != x+16 {
		t.Fatalf("got %+v, want a race on the word at x+16", r)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"off", "hb", "lockset"} {
		if m, err := ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if m, err := ParseMode("hybrid"); err != nil || m != HB {
		t.Errorf(`ParseMode("hybrid") = %v, %v; want hb (older schedule files)`, m, err)
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error("ParseMode(on) succeeded")
	}
}
