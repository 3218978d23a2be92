// Package maps iterates over maps.
package maps

import (
	"sync"

	"example.com/basic/notests"
)

// Keys returns the keys in iteration order, deleting odd keys on the way
// and assigning through = forms.
func Keys(m map[int]string) []int {
	var out []int
	for k := range m {
		out = append(out, k)
		delete(m, k+1)
	}
	var k int
	var v string
	for k, v = range m {
		_ = v
	}
	out = append(out, k)
	for range m {
		out = append(out, -1)
	}
	return out
}

// Index counts words on two goroutines into one map.
func Index(words []string) map[string]int {
	var mu sync.Mutex
	idx := make(map[string]int)
	var first notests.Flag
	var wg sync.WaitGroup
	for half := 0; half < 2; half++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, w := range words {
				if i%2 == half {
					mu.Lock()
					idx[w]++
					mu.Unlock()
				}
			}
			first.Set()
		}()
	}
	wg.Wait()
	return idx
}
