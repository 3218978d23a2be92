// Package locker takes a *sync.Mutex: rewritten, it takes the scheduler's,
// and cgolock, a cgo package that is not rewritten and hands it a
// sync.Mutex, no longer compiles. So it is left alone, and named.
package locker

import "sync"

// With runs f holding mu.
func With(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
