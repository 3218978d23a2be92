package buffernotify

import (
	"os"
	"sync"
	"testing"
)

// itemsProduced is the number of items each producer enqueues (Java's
// ITEMS_PRODUCED); the consumer dequeues twice as many.
const itemsProduced = 2

// run is the main method of Figure 4.16: it starts producers P1 and P2 and
// the consumer, in that order, and waits for all three.
func run(fixed bool) {
	b := NewBuffer(fixed)
	var wg sync.WaitGroup
	producer := func(name string) {
		defer wg.Done()
		for range itemsProduced {
			b.Enq(name)
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
	// In Java P2 has Thread.MIN_PRIORITY, which hides the bug from a normal
	// scheduler. Go has no goroutine priorities; xbtest ignores them anyway.
	go producer("P2")
	go consumer()
	wg.Wait()
}

func TestBufferNotify(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(false)
}

func TestBufferNotifyFixed(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	run(true)
}
