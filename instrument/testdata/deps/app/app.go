// Package app uses dependencies of every kind.
package app

import (
	"example.com/asmlib"
	"example.com/cgolib"
	"example.com/cgolock"
	"example.com/daemon"
	"example.com/odd"
	"example.com/pool"
	"example.com/pure"
)

// Count adds one twice, on two goroutines of pool, without a lock.
func Count() int {
	n := 0
	pool.Run(func() { n++ }, func() { n++ })
	return n
}

// Sum uses asmlib.
func Sum() int64 { return asmlib.AddAsync(1, 2) }

// Others uses the rest.
func Others() (string, int, int, int, odd.R) {
	return pure.Twice("a"), cgolib.Two(), cgolock.One(), daemon.Beats(), odd.Never()
}
