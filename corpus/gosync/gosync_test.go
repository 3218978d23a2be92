package gosync

import (
	"os"
	"sync"
	"testing"
)

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/gosync)")
	}
}

// TestRecursiveRLock: the writer is started before the reader's first
// RLock, so no go statement separates the two RLocks.
func TestRecursiveRLock(t *testing.T) {
	skipUnlessXBTest(t)
	r := NewRegistry()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Set("a", "1")
	}()
	r.Describe("a")
	wg.Wait()
}

// TestRecursiveRLockFixed takes one read lock.
func TestRecursiveRLockFixed(t *testing.T) {
	skipUnlessXBTest(t)
	r := NewRegistry()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Set("a", "1")
	}()
	r.DescribeFixed("a")
	wg.Wait()
}

// consumer starts a goroutine that takes one item, and returns once it
// waits for one: it says so while it holds the queue's lock, which it
// releases only by waiting.
func consumer(q *Queue, got chan<- int) {
	waiting := make(chan bool)
	go func() {
		q.mu.Lock()
		waiting <- true
		for len(q.items) == 0 {
			q.c.Wait()
		}
		v := q.items[0]
		q.items = q.items[1:]
		q.mu.Unlock()
		got <- v
	}()
	<-waiting
}

// TestSignalOutsideLock: the consumer waits before the item is put, so
// only the Signal can let it in between PutAndPeek's two critical
// sections.
func TestSignalOutsideLock(t *testing.T) {
	skipUnlessXBTest(t)
	q := NewQueue()
	got := make(chan int, 1)
	consumer(q, got)
	q.PutAndPeek(1)
	<-got
}

// TestSignalOutsideLockFixed signals under the lock.
func TestSignalOutsideLockFixed(t *testing.T) {
	skipUnlessXBTest(t)
	q := NewQueue()
	got := make(chan int, 1)
	consumer(q, got)
	q.PutAndPeekFixed(1)
	<-got
}

// TestSelectServedFirst assumes that once done is closed the waiter sees
// done. But a kick sent while the waiter was already waiting, before the
// close, serves its select first. The kick and the close touch different
// channels: ExitBlock-RW took them for independent and never ran the kick
// first until serving a select counted as touching all its channels.
func TestSelectServedFirst(t *testing.T) {
	skipUnlessXBTest(t)
	kick, done := make(chan struct{}), make(chan struct{})
	got := make(chan string, 1)
	go func() { got <- WaitKickOrDone(kick, done) }()
	go Kick(kick)
	close(done)
	if g := <-got; g != "done" {
		t.Errorf("the waiter saw %q after done was closed", g)
	}
}

// TestSelectServedFirstFixed checks what does hold: the waiter saw a kick
// exactly when Kick delivered one.
func TestSelectServedFirstFixed(t *testing.T) {
	skipUnlessXBTest(t)
	kick, done := make(chan struct{}), make(chan struct{})
	got := make(chan string, 1)
	kicked := make(chan bool, 1)
	go func() { got <- WaitKickOrDone(kick, done) }()
	go func() { kicked <- Kick(kick) }()
	close(done)
	if g, k := <-got, <-kicked; k != (g == "kick") {
		t.Errorf("the waiter saw %q, Kick reported %v", g, k)
	}
}
