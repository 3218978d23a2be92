// Package buffernotify ports BufferNotify, Figures 4.15 and 4.16 of
// Bruening's thesis "Systematic Testing of Multithreaded Java Programs"
// (MIT, 1999).
//
// Buffer is a bounded buffer of capacity 1 guarded by a mutex and one
// condition variable, used by two producers and one consumer. Both Enq and
// Deq recheck their condition in a loop, but wake a single waiter with Signal
// (Java's notify) instead of all of them with Broadcast (notifyAll). The one
// condition variable stands for two conditions, "not full" (producers wait
// for it) and "not empty" (the consumer waits for it), so a Signal can wake a
// goroutine waiting for the other condition. In the schedule of Figure 4.17,
// P1 fills the buffer and waits to enqueue its second item, P2 waits too, and
// the consumer dequeues, wakes P1 and waits on the now empty buffer. P1
// enqueues, and its Signal wakes P2 instead of the consumer; P2 finds the
// buffer full and waits again. P1 exits, and P2 and the consumer wait
// forever: a condition deadlock.
//
// Expected xbtest verdicts:
//   - TestBufferNotify: deadlock (condition deadlock: a producer and the
//     consumer waiting).
//   - TestBufferNotifyFixed (NewBuffer(true): Broadcast): none.
package buffernotify

import "sync"

// Capacity is the number of elements the buffer holds.
const Capacity = 1

// BufSize is the number of slots (Java's BUFSIZE): one extra slot is needed
// to tell full from empty.
const BufSize = Capacity + 1

// Buffer is the shared, bounded buffer of Figure 4.15. mu and cond are Java's
// monitor of the Buffer object and its wait set (cond.L == &mu).
type Buffer struct {
	mu          sync.Mutex
	cond        *sync.Cond
	fixed       bool
	first, last int
	els         [BufSize]any
}

// NewBuffer returns an empty buffer. With fixed false, Enq and Deq wake one
// waiter with Signal (the bug of the figure); with fixed true they wake all
// waiters with Broadcast.
func NewBuffer(fixed bool) *Buffer {
	b := &Buffer{fixed: fixed}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// notify wakes the waiters of the buffer: one of them (Java's notify, the
// bug) or, in the fixed buffer, all of them (notifyAll).
func (b *Buffer) notify() {
	if b.fixed {
		b.cond.Broadcast()
	} else {
		b.cond.Signal() // error -- should be Broadcast
	}
}

// Enq appends x, waiting while the buffer is full.
func (b *Buffer) Enq(x any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for (b.last+1)%BufSize == b.first {
		b.cond.Wait()
	}
	b.els[b.last] = x
	b.last = (b.last + 1) % BufSize
	b.notify()
}

// Deq removes and returns the oldest element, waiting while the buffer is
// empty.
func (b *Buffer) Deq() any {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.first == b.last {
		b.cond.Wait()
	}
	val := b.els[b.first]
	b.first = (b.first + 1) % BufSize
	b.notify()
	return val
}
