//go:build amd64 || arm64

package engine

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
