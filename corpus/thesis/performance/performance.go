// Package performance ports Performance, Figure 4.1 of Bruening's thesis
// "Systematic Testing of Multithreaded Java Programs" (MIT, 1999).
//
// Run starts n goroutines, each of which takes and releases each of l locks
// once, in order, with nothing in between; the goroutines share no data. The
// program is correct: it exists to measure how the number of schedules grows
// with the number of goroutines and locks (Tables 4.1 and 4.2; the thesis's
// best case for ExitBlock-RW is (n+1)^(k-1) schedules for k threads that each
// take n locks, section 2.4.1).
//
// Expected xbtest verdict:
//   - TestPerformance_N_L (all of them): none.
package performance

import "sync"

// Run is the main method of Figure 4.1 for n threads and l locks: it creates
// the l locks, starts n goroutines and returns at once, without waiting for
// them, as Java's main does.
func Run(n, l int) {
	locks := make([]sync.Mutex, l)
	for range n {
		go work(locks)
	}
}

// work is the run method of Figure 4.1: it takes and releases each lock in
// turn, with an empty critical section.
func work(locks []sync.Mutex) {
	for i := range locks {
		locks[i].Lock()
		locks[i].Unlock()
	}
}
