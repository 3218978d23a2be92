// Package loopvar starts goroutines that read the variables of a loop.
// Below go 1.22 a loop has one variable for all its iterations, which the
// loop writes at each iteration while the goroutines of the earlier ones
// read it: a data race (go test -race reports it). From go 1.22 each
// iteration has its own variables: no race.
package loopvar

import (
	"sync"
	"testing"
)

// sum adds what the goroutines saw, under a lock.
type sum struct {
	mu sync.Mutex
	n  int
}

func (s *sum) add(n int) {
	s.mu.Lock()
	s.n += n
	s.mu.Unlock()
}

func TestRangeSliceVar(t *testing.T) {
	var s sum
	var wg sync.WaitGroup
	for _, v := range []int{1, 2} { // RANGE SLICE
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.add(v) // READ SLICE
		}()
	}
	wg.Wait()
}

func TestRangeMapVar(t *testing.T) {
	var s sum
	var wg sync.WaitGroup
	for k := range map[int]bool{1: true, 2: true} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.add(k)
		}()
	}
	wg.Wait()
}

func TestRangeChanVar(t *testing.T) {
	var s sum
	var wg sync.WaitGroup
	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	close(ch)
	for v := range ch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.add(v)
		}()
	}
	wg.Wait()
}

func TestForClauseVar(t *testing.T) {
	var s sum
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.add(i)
		}()
	}
	wg.Wait()
}
