//go:build amd64 || arm64

package engine

import "unsafe"

// getg returns the address of the calling goroutine's runtime descriptor.
// It is used only as an identity: a hook checks that its caller is the
// goroutine the scheduler believes is running, so that instrumented code
// reached from a goroutine xbtest does not control is reported instead of
// silently corrupting the schedule.
func getg() uintptr

// stackBounds returns the calling goroutine's stack, [lo, hi): the first
// field of the runtime's goroutine descriptor (g.stack), which the
// runtime's own assembly reads at these offsets.
func stackBounds() (lo, hi uintptr)

// callerFP returns the frame pointer of the function that calls it.
func callerFP() unsafe.Pointer

// spawnSite fills pcs with the return addresses of the calls that led to
// its caller's caller, as runtime.Callers(2, pcs) does, by following the
// frame pointers that Go keeps on these architectures (as the runtime's
// execution tracer does): a few nanoseconds where runtime.Callers, which
// decodes each frame's tables, costs about a microsecond, and Go runs on
// every goroutine start. The walk stops at a nil frame pointer (a
// goroutine's first frame); CallersFrames expands inlined calls from the
// return addresses alone.
//
//go:noinline
func spawnSite(pcs []uintptr) int {
	fp := callerFP()            // spawnSite's own frame
	fp = *(*unsafe.Pointer)(fp) // its caller's
	n := 0
	for ; n < len(pcs) && fp != nil; n++ {
		// The return address sits one word above the frame pointer.
		pcs[n] = *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(fp)))
		fp = *(*unsafe.Pointer)(fp)
	}
	return n
}
