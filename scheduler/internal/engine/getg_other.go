//go:build !amd64 && !arm64

package engine

import "runtime"

// getg falls back to the goroutine number printed by runtime.Stack on
// architectures without an assembly implementation (curGoid, stacks.go).
// It is slow (about a microsecond) but gives the same identity guarantee.
func getg() uintptr { return uintptr(curGoid()) }

// stackBounds is unknown here: no access is taken for one on the stack.
func stackBounds() (lo, hi uintptr) { return 0, 0 }

// spawnSite fills pcs as runtime.Callers(2, pcs) would in its caller.
//
//go:noinline
func spawnSite(pcs []uintptr) int { return runtime.Callers(3, pcs) }
