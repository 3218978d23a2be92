//go:build !amd64 && !arm64

package engine

import (
	"bytes"
	"runtime"
	"strconv"
)

// getg falls back to the goroutine number printed by runtime.Stack on
// architectures without an assembly implementation. It is slow (about a
// microsecond) but gives the same identity guarantee.
func getg() uintptr {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := bytes.TrimPrefix(buf[:n], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return uintptr(id)
}

// stackBounds is unknown here: no access is taken for one on the stack.
func stackBounds() (lo, hi uintptr) { return 0, 0 }
