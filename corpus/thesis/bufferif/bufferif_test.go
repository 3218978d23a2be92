package bufferif

import (
	"os"
	"sync"
	"testing"
)

// itemsProduced is the number of items each producer enqueues (Java's
// ITEMS_PRODUCED); the consumer dequeues twice as many.
const itemsProduced = 2

// run is the main method of Figure 4.13: it starts producer P1, the consumer
// and producer P2, in that order, and waits for all three.
func run(t *testing.T, fixed bool) {
	b := NewBuffer(fixed)
	var wg sync.WaitGroup
	producer := func(name string) {
		defer wg.Done()
		for range itemsProduced {
			if !b.Enq(name) {
				t.Errorf("%s: Buffer.Enq: buffer overflow", name)
			}
		}
	}
	consumer := func() {
		defer wg.Done()
		for range 2 * itemsProduced {
			b.Deq()
		}
	}
	wg.Add(3)
	go producer("P1")
	go consumer()
	// In Java P2 has Thread.MIN_PRIORITY, which hides the bug from a normal
	// scheduler. Go has no goroutine priorities; xbtest ignores them anyway.
	go producer("P2")
	wg.Wait()
}

func TestBufferIf(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(t, false)
}

func TestBufferIfFixed(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(t, true)
}
