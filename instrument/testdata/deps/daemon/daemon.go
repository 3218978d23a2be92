// Package daemon starts a goroutine when the program initializes, before
// any test runs: xbtest cannot control it, so the code it runs is left
// alone (rewritten, its calls into the scheduler would come from a
// goroutine xbtest does not control and stop the test), and named.
package daemon

import (
	"sync"
	"time"
)

var (
	mu    sync.Mutex
	beats int
)

func init() { go beat() }

func beat() {
	for {
		time.Sleep(time.Millisecond)
		count()
	}
}

func count() {
	mu.Lock()
	beats++
	mu.Unlock()
}

// Beats says how many times the daemon woke up.
func Beats() int {
	mu.Lock()
	defer mu.Unlock()
	return beats
}
