package scheduler_test

// The programs of thesis Ch. 4 (and Figs 2.17, 2.20, 2.21) written by hand
// against the scheduler's API, as the rewriter will produce them from
// ordinary Go. Shared variables are registered heap cells (xb.New) and every
// access is reported with rd/wr.

import (
	"unsafe"

	xb "github.com/xbtest/xbtest/scheduler"
)

// spawner starts goroutines that the test goroutine waits for at the end,
// as the corpus's idiomatic ports do (Java's main thread only starts them).
type spawner struct{ wg xb.WaitGroup }

func (s *spawner) goWait(f func()) {
	s.wg.Add(1)
	xb.Go(func() {
		defer s.wg.Done()
		f()
	})
}

func rd(p *int) int {
	xb.Read(unsafe.Pointer(p), unsafe.Sizeof(*p), 0)
	return *p
}

func wr(p *int, v int) {
	xb.Write(unsafe.Pointer(p), unsafe.Sizeof(*p), 0)
	*p = v
}

// splitSync is Fig 4.2: the increment of x is split over two critical sections.
func splitSync(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	mu := xb.New(new(xb.Mutex))
	x := xb.New(new(int))
	for range 2 {
		sp.goWait(func() {
			mu.Lock()
			y := rd(x)
			mu.Unlock()
			mu.Lock()
			if rd(x) != y {
				t.Errorf("SplitSync.run: shared var was modified!")
			}
			wr(x, y+1)
			mu.Unlock()
		})
	}
}

// noEraser is Fig 4.4: B increments x without the lock if it reads 0 first.
func noEraser(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	mu := xb.New(new(xb.Mutex))
	x := xb.New(new(int))
	for _, name := range []string{"A", "B"} {
		sp.goWait(func() {
			mu.Lock()
			y := rd(x)
			mu.Unlock()
			if y == 0 && name == "B" {
				wr(x, rd(x)+1)
			} else {
				mu.Lock()
				wr(x, rd(x)+1)
				mu.Unlock()
			}
		})
	}
}

// deadlock is Fig 4.6: two threads take a and b in opposite orders.
func deadlock(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
	for _, ab := range []bool{true, false} {
		sp.goWait(func() {
			first, second := a, b
			if !ab {
				first, second = b, a
			}
			first.Lock()
			second.Lock()
			second.Unlock()
			first.Unlock()
		})
	}
}

// deadlock3 is Fig 4.8: three threads take (a,b), (b,c), (c,a).
func deadlock3(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	l := xb.Slice(make([]xb.Mutex, 3))
	for i := range 3 {
		sp.goWait(func() {
			l[i].Lock()
			l[(i+1)%3].Lock()
			l[(i+1)%3].Unlock()
			l[i].Unlock()
		})
	}
}

// deadlockWait is Fig 4.10: First waits on b while holding a; Second needs a
// before it can notify b.
func deadlockWait(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
	cb := xb.NewCond(b)
	sp.goWait(func() {
		a.Lock()
		b.Lock()
		cb.Wait()
		b.Unlock()
		a.Unlock()
	})
	sp.goWait(func() {
		a.Lock()
		a.Unlock()
		b.Lock()
		cb.Signal()
		b.Unlock()
	})
}

// buffer is the bounded buffer of Figs 4.12 and 4.15 (capacity 1).
type buffer struct {
	mu          xb.Mutex
	c           *xb.Cond
	first, last int
	els         [2]int
	notifyAll   bool // Broadcast (notifyAll) rather than Signal (notify)
	ifNotWhile  bool // Fig 4.12's bug
}

const bufSize = 2

func newBuffer(notifyAll, ifNotWhile bool) *buffer {
	b := xb.New(&buffer{notifyAll: notifyAll, ifNotWhile: ifNotWhile})
	b.c = xb.NewCond(&b.mu)
	return b
}

func (b *buffer) notify() {
	if b.notifyAll {
		b.c.Broadcast()
	} else {
		b.c.Signal()
	}
}

func (b *buffer) enq(t *xb.T, x int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ifNotWhile {
		if (rd(&b.last)+1)%bufSize == rd(&b.first) {
			b.c.Wait()
		}
	} else {
		for (rd(&b.last)+1)%bufSize == rd(&b.first) {
			b.c.Wait()
		}
	}
	if (rd(&b.last)+1)%bufSize == rd(&b.first) {
		t.Errorf("Buffer.enq: buffer overflow!")
	}
	wr(&b.els[rd(&b.last)], x)
	wr(&b.last, (rd(&b.last)+1)%bufSize)
	b.notify()
}

func (b *buffer) deq() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for rd(&b.first) == rd(&b.last) {
		b.c.Wait()
	}
	v := rd(&b.els[rd(&b.first)])
	wr(&b.first, (rd(&b.first)+1)%bufSize)
	b.notify()
	return v
}

// bufferIf is Fig 4.13: producers P1, P2 (two items each) and a consumer
// started in the order P1, consumer, P2, sharing the buffer with the if bug.
func bufferIf(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	b := newBuffer(true, true)
	producer := func() {
		for i := range 2 {
			b.enq(t, i)
		}
	}
	sp.goWait(producer)
	sp.goWait(func() {
		for range 4 {
			b.deq()
		}
	})
	sp.goWait(producer)
}

// bufferNotify is Fig 4.16: correct loops, but notify instead of notifyAll;
// started in the order P1, P2, consumer.
func bufferNotify(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	b := newBuffer(false, false)
	producer := func() {
		for i := range 2 {
			b.enq(t, i)
		}
	}
	sp.goWait(producer)
	sp.goWait(producer)
	sp.goWait(func() {
		for range 4 {
			b.deq()
		}
	})
}

// fig217: ExitBlock plus reverse lock chain analysis finds this potential
// deadlock; ExitBlock-RW prunes the branches that show it.
func fig217(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
	sp.goWait(func() {
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	})
	sp.goWait(func() {
		a.Lock()
		a.Unlock()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	})
}

// fig220 condition-deadlocks if Thread 2 runs before Thread 1.
func fig220(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a := xb.New(new(xb.Mutex))
	c := xb.NewCond(a)
	sp.goWait(func() {
		a.Lock()
		c.Wait()
		c.Signal()
		a.Unlock()
	})
	sp.goWait(func() {
		a.Lock()
		c.Signal()
		c.Wait()
		a.Unlock()
	})
}

// fig221 never deadlocks, but ExitBlock-RW ends a path with Thread 1 waiting
// and a thread delayed.
func fig221(t *xb.T) {
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	a := xb.New(new(xb.Mutex))
	c := xb.NewCond(a)
	for range 2 {
		sp.goWait(func() {
			a.Lock()
			c.Signal()
			c.Wait()
			c.Signal()
			a.Unlock()
		})
	}
}
