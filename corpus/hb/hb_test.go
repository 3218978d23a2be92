package hb

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/hb)")
	}
}

// TestSemaphoreHandOver is x/sync/semaphore's TestLargeAcquireDoesntStarve
// with two workers: `running` is written by the test goroutine without a
// lock after it acquired the whole semaphore, and read by the workers
// before each Release. The semaphore's mutex (or its waiter's channel)
// orders every read before the write.
func TestSemaphoreHandOver(t *testing.T) {
	skipUnlessXBTest(t)
	ctx := context.Background()
	const n = 2
	sem := NewWeighted(n)
	running := true
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		sem.Acquire(ctx, 1)
		go func() {
			defer func() {
				sem.Release(1)
				wg.Done()
			}()
			for j := 0; running && j < 1; j++ {
				sem.Release(1)
				sem.Acquire(ctx, 1)
			}
		}()
	}
	sem.Acquire(ctx, n)
	running = false
	sem.Release(n)
	wg.Wait()
}

// TestSingleflightDups: dups is written under the group's mutex by the
// duplicate callers and read without it by the first caller after it
// removed the call from the map under the same mutex.
func TestSingleflightDups(t *testing.T) {
	skipUnlessXBTest(t)
	var g Group
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, _ := g.Do("k", func() int { return 7 }); v != 7 {
				t.Errorf("got %d, want 7", v)
			}
		}()
	}
	wg.Wait()
}

// TestMapHandOverUnderMutex: a map filled by one goroutine is handed to
// another under a mutex and ranged over outside it.
func TestMapHandOverUnderMutex(t *testing.T) {
	skipUnlessXBTest(t)
	var r Registry
	done := make(chan int)
	go func() {
		m := map[string]int{"a": 1, "b": 2}
		m["c"] = 3
		r.Publish(m)
	}()
	go func() {
		sum := 0
		for i := 0; i < 3; i++ {
			if m := r.Take(); m != nil {
				for _, v := range m {
					sum += v
				}
				break
			}
		}
		done <- sum
	}()
	if sum := <-done; sum != 0 && sum != 6 {
		t.Errorf("sum %d, want 0 (not yet published) or 6", sum)
	}
}

// TestDifferentLocks is a race: after set-up, one goroutine reads the
// balance under one lock and another writes it under another, once each.
// Pure Eraser misses it (the first goroutine to touch it after the hooks
// come on owns it exclusively until the second, whose lockset is not
// empty); the memory model's definition does not.
func TestDifferentLocks(t *testing.T) {
	skipUnlessXBTest(t)
	a := &Account{balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = a.Balance() }()
	go func() { defer wg.Done(); a.Deposit(5) }()
	wg.Wait()
	if b := a.Balance(); b != 15 {
		t.Errorf("balance %d, want 15", b)
	}
}

// TestSyncMapHandOver: an item filled before Store is read by the goroutine
// whose Load returns it.
func TestSyncMapHandOver(t *testing.T) {
	skipUnlessXBTest(t)
	var m sync.Map
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		it := &Item{ID: 1}
		it.Words = append(it.Words, "one")
		m.Store("k", it)
	}()
	go func() {
		defer wg.Done()
		if v, ok := m.Load("k"); ok {
			it := v.(*Item)
			if it.ID != 1 || len(it.Words) != 1 {
				t.Errorf("got %+v", it)
			}
		}
	}()
	wg.Wait()
}

// TestPoolHandOver: an item written before Put is read by the goroutine
// whose Get returns it.
func TestPoolHandOver(t *testing.T) {
	skipUnlessXBTest(t)
	var p sync.Pool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		it := &Item{ID: 2}
		it.Words = []string{"two"}
		p.Put(it)
	}()
	go func() {
		defer wg.Done()
		if v := p.Get(); v != nil {
			it := v.(*Item)
			it.ID++
			_ = it.Words[0]
		}
	}()
	wg.Wait()
}

// TestChannelSemaphore: a buffered channel of capacity 1 as a lock. The
// kth receive is synchronized before the k+1th send completes, so the
// counter is protected.
func TestChannelSemaphore(t *testing.T) {
	skipUnlessXBTest(t)
	sem := make(chan struct{}, 1)
	count := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			count++
			<-sem
		}()
	}
	wg.Wait()
	if count != 2 {
		t.Errorf("count %d, want 2", count)
	}
}

// TestBufferedReceiveOrdersOnlyItsSend is a race: a receive is ordered
// after the send of the value it gets, not after every send so far. When
// T0 receives T0.2's value first, T0.1's write of x is unordered with T0's
// read.
func TestBufferedReceiveOrdersOnlyItsSend(t *testing.T) {
	skipUnlessXBTest(t)
	ch := make(chan int, 2)
	x := 0
	go func() {
		x = 1
		ch <- 1
	}()
	go func() { ch <- 2 }()
	if <-ch == 2 {
		_ = x
	}
	<-ch
}

// TestAtomicLoadReleasesNothing is a race: an atomic load has no effect
// another goroutine can observe, so it orders nothing after it.
func TestAtomicLoadReleasesNothing(t *testing.T) {
	skipUnlessXBTest(t)
	var flag atomic.Int32
	x := 0
	done := make(chan bool)
	go func() {
		x = 1
		flag.Load()
		done <- true
	}()
	go func() {
		flag.Load()
		_ = x
		done <- true
	}()
	<-done
	<-done
}

// TestAtomicStoreOrders: the store's effect, observed by the load, orders
// the write before it before the read after the load.
func TestAtomicStoreOrders(t *testing.T) {
	skipUnlessXBTest(t)
	var flag atomic.Int32
	x := 0
	done := make(chan bool)
	go func() {
		x = 1
		flag.Store(1)
		done <- true
	}()
	go func() {
		if flag.Load() == 1 {
			_ = x
		}
		done <- true
	}()
	<-done
	<-done
}
