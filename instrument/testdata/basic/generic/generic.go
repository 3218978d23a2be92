// Package generic has generic code with goroutines and locks.
package generic

import "sync"

// Stack is a stack safe for concurrent use.
type Stack[T any] struct {
	mu    sync.Mutex
	items []T
}

// Push pushes v.
func (s *Stack[T]) Push(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, v)
}

// Len returns the number of items.
func (s *Stack[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// Map applies f to every element on its own goroutine.
func Map[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	var wg sync.WaitGroup
	for i, v := range in {
		wg.Add(1)
		go func(i int, v T) {
			defer wg.Done()
			out[i] = f(v)
		}(i, v)
	}
	wg.Wait()
	return out
}

// Sum adds numbers received on a channel.
func Sum[N int | float64](ch <-chan N) N {
	var total N
	for v := range ch {
		total += v
	}
	return total
}

// Guarded pairs a value with the lock that guards it.
type Guarded[T any] struct {
	sync.RWMutex
	V T
}

// Locked is a lock as a generic type argument.
var Locked Stack[sync.Mutex]
