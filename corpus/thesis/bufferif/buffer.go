// Package bufferif ports BufferIf, Figures 4.12 and 4.13 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Buffer is a bounded buffer of capacity 1 guarded by a mutex and one
// condition variable, used by two producers and one consumer. Its Enq checks
// "buffer full" with an if instead of a for loop. When both producers wait on
// a full buffer and the consumer dequeues, the Broadcast wakes both; the first
// to run fills the buffer and the second, not rechecking the condition,
// enqueues into the full buffer and overflows it. Enq checks the invariant
// after the wait, like the assertion the thesis inserts, and reports the
// overflow. The overflowing item overwrites a slot and makes the buffer look
// empty, so one item is lost and the consumer then waits forever for its
// fourth item, which is the condition deadlock the thesis's tester reports on
// the same paths (Figure 4.14).
//
// Expected xbtest verdicts:
//   - TestBufferIf: assertion ("buffer overflow"); in the same schedules a
//     condition deadlock (consumer waiting forever) is also possible, and
//     without the assertion it is the only symptom.
//   - TestBufferIfFixed (NewBuffer(true): for instead of if): none.
package bufferif

import "sync"

// BufSize is the number of slots of the buffer (Java's BUFSIZE): one slot is
// kept empty to tell full from empty, so the capacity is 1.
const BufSize = 2

// Buffer is the shared, bounded buffer of Figure 4.12. mu and cond are Java's
// monitor of the Buffer object and its wait set (cond.L == &mu).
type Buffer struct {
	mu          sync.Mutex
	cond        *sync.Cond
	fixed       bool
	first, last int
	els         [BufSize]any
}

// NewBuffer returns an empty buffer. With fixed false, Enq has the bug of the
// figure (if instead of a loop); with fixed true it rechecks the condition in
// a loop.
func NewBuffer(fixed bool) *Buffer {
	b := &Buffer{fixed: fixed}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Enq appends x, waiting while the buffer is full, and wakes all waiters.
// It reports whether the invariant "the buffer is not full" held when x was
// stored; if it did not, the buffer has overflowed (x is stored anyway, as in
// the figure, whose assertion only notifies the tester).
func (b *Buffer) Enq(x any) (ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fixed {
		for (b.last+1)%BufSize == b.first {
			b.cond.Wait()
		}
	} else {
		if (b.last+1)%BufSize == b.first { // error -- should be for, not if
			b.cond.Wait()
		}
	}
	// invariant: (last+1) % BufSize != first
	ok = (b.last+1)%BufSize != b.first
	b.els[b.last] = x
	b.last = (b.last + 1) % BufSize
	b.cond.Broadcast() // Java: notifyAll
	return ok
}

// Deq removes and returns the oldest element, waiting while the buffer is
// empty, and wakes all waiters.
func (b *Buffer) Deq() any {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.first == b.last {
		b.cond.Wait()
	}
	val := b.els[b.first]
	b.first = (b.first + 1) % BufSize
	b.cond.Broadcast() // Java: notifyAll
	return val
}
