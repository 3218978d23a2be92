//go:build !amd64 && !arm64

package engine

// getg falls back to the goroutine number printed by runtime.Stack on
// architectures without an assembly implementation (curGoid, stacks.go).
// It is slow (about a microsecond) but gives the same identity guarantee.
func getg() uintptr { return uintptr(curGoid()) }

// stackBounds is unknown here: no access is taken for one on the stack.
func stackBounds() (lo, hi uintptr) { return 0, 0 }
