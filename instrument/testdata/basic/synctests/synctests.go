// Package synctests uses testing/synctest (Go 1.25): its bubbles, their
// wait in synctest.Test, synctest.Wait, and time inside a bubble.
package synctests

import "time"

// Worker sleeps d, then sends on out.
func Worker(d time.Duration, out chan<- time.Duration) {
	start := time.Now()
	time.Sleep(d)
	out <- time.Since(start)
}
