//go:build linux

package checkpoint

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// state is a Target whose program state is clean or not; nothing else of
// it is used here.
type state struct {
	Target
	clean bool
}

func (s state) Clean() (bool, string) { return s.clean, "changed" }

// A zygote's child under auto re-runs the next executions itself, warm: the
// pages its execution under way copied for the first time are no part of
// what replaying the prefix will cost. Any other process is replaced by a
// cold child, so for it they are.
func TestReplayCostDiscountsFirstCopiesOnlyWhereTheProcessReruns(t *testing.T) {
	const page = 2 * time.Microsecond
	fresh := func() *Fork {
		f := NewFork(true)
		f.parentDepth, f.pageCost, f.execFaults = 0, page, pageFaults()
		buf, err := syscall.Mmap(-1, 0, 200*os.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(buf)
		for i := 0; i < len(buf); i += os.Getpagesize() {
			buf[i] = 1 // a page fault each: the mapping is new
		}
		return f
	}
	const elapsed = 10 * time.Millisecond
	if got := fresh().replayCost(state{clean: true}, elapsed); got > elapsed-200*page {
		t.Errorf("auto, zygote's child, clean: %v, want at most %v", got, elapsed-200*page)
	}
	f := fresh()
	f.parentDepth = 3 // a snapshot's child: the next execution is another child
	if got := f.replayCost(state{clean: true}, elapsed); got != elapsed {
		t.Errorf("snapshot's child: %v, want %v", got, elapsed)
	}
	if got := fresh().replayCost(state{clean: false}, elapsed); got != elapsed {
		t.Errorf("package state changed: %v, want %v", got, elapsed)
	}
	f = fresh()
	f.auto = false
	if got := f.replayCost(state{clean: true}, elapsed); got != elapsed {
		t.Errorf("fork: %v, want %v", got, elapsed)
	}
}

// A snapshot's child costs the fork and a copy of every page it writes, as
// many as the forked processes of this exploration that left wrote on
// average, or, before any did, those of earlier explorations; a fork alone
// before any left at all.
func TestSnapshotCostCountsTheCopiesOfForkedProcesses(t *testing.T) {
	if err := setupShared(); err != nil {
		t.Skip(err)
	}
	left, copied := shm.left.Load(), shm.copied.Load()
	defer func() { shm.left.Store(left); shm.copied.Store(copied) }()
	f := NewFork(true)
	f.forkCost, f.pageCost = 400*time.Microsecond, 2*time.Microsecond
	shm.left.Store(0)
	shm.copied.Store(0)
	if got := f.snapshotCost(); got != 400*time.Microsecond {
		t.Errorf("none left: %v", got)
	}
	shm.left.Store(4)
	shm.copied.Store(4 * 150)
	if got, want := f.snapshotCost(), 400*time.Microsecond+150*2*time.Microsecond; got != want {
		t.Errorf("4 left, 150 pages each: %v, want %v", got, want)
	}
	f.left0, f.copied0 = 4, 4*150 // this exploration starts
	if got, want := f.snapshotCost(), 400*time.Microsecond+150*2*time.Microsecond; got != want {
		t.Errorf("none of this exploration left: %v, want the earlier ones' %v", got, want)
	}
	shm.left.Store(4 + 2)
	shm.copied.Store(4*150 + 2*1000)
	if got, want := f.snapshotCost(), 400*time.Microsecond+1000*2*time.Microsecond; got != want {
		t.Errorf("2 of this exploration left, 1,000 pages each: %v, want %v", got, want)
	}
}

// measureFork prices a page a forked child writes: a copy-on-write fault
// costs something, and far less than the fork.
func TestMeasureForkPricesAPage(t *testing.T) {
	if err := setupShared(); err != nil {
		t.Skip(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // as Fork.Explore forks
	fork, page := measureFork()
	if fork <= 0 || page <= 0 || page >= fork {
		t.Errorf("fork %v, page %v", fork, page)
	}
	t.Logf("fork %v, page %v", fork, page)
}
