// Package goargs starts goroutines in every form.
package goargs

import (
	"sort"
	"sync"
)

// Box records values.
type Box struct {
	mu  sync.Mutex
	wg  sync.WaitGroup
	got []int
}

// Add records v (pointer receiver) and marks one task done.
func (b *Box) Add(v int) {
	b.mu.Lock()
	b.got = append(b.got, v)
	b.mu.Unlock()
	b.wg.Done()
}

// Val is a value receiver type.
type Val struct{ n int }

// AddTo adds the receiver's n as it was when the goroutine started.
func (v Val) AddTo(b *Box) { b.Add(v.n) }

func pair() (int, int) { return 4, 5 }

func (b *Box) add2(x, y int) { b.Add(x*10 + y) }

func sum(b *Box, xs ...int) {
	t := 0
	for _, x := range xs {
		t += x
	}
	b.Add(t)
}

// Run starts goroutines in every form, one at a time; every argument is
// evaluated before the goroutine starts.
func Run() []int {
	var b Box
	b.wg.Add(1)
	x := 1
	go func(v int) { b.Add(v) }(x) // 1
	x = 2
	b.wg.Wait()

	b.wg.Add(1)
	v := Val{n: 3}
	go v.AddTo(&b) // 3: the receiver is copied now
	v.n = 99
	b.wg.Wait()

	b.wg.Add(1)
	go b.add2(pair()) // 45
	b.wg.Wait()

	b.wg.Add(1)
	f := b.Add
	go f(8)
	b.wg.Wait()

	b.wg.Add(1)
	xs := []int{10, 20}
	go sum(&b, xs...) // 30
	xs = nil
	b.wg.Wait()

	b.wg.Add(1)
	go func() {
		b.Add(x) // 2: x is shared
	}()
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]int(nil), b.got...)
	sort.Ints(out)
	return out
}
