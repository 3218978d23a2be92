// Package cgolock uses cgo, and hands a sync.Mutex to locker.
package cgolock

// static int one(void) { return 1; }
import "C"

import (
	"sync"

	"example.com/locker"
)

var mu sync.Mutex

// One returns 1, from C, under mu.
func One() (n int) {
	locker.With(&mu, func() { n = int(C.one()) })
	return n
}
