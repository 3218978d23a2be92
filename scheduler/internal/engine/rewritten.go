package engine

import (
	"fmt"
	"sync/atomic"

	"github.com/xbtest/xbtest/settings"
)

// The rewrite depends on the memory model: under -memory tso|pso the
// helpers pass stored values to the scheduler, so that a load can see its
// goroutine's buffered stores; under sc they store directly. A binary
// rewritten for one cannot explore the other (stores would bypass the
// buffers, or a buffer would hold values the helpers never pass), so every
// rewritten package says which it was rewritten for, and RunTest refuses a
// mismatch. Granularity does not change the rewrite: every shared access
// calls a hook either way, and the scheduler decides whether it ends a
// block.
var rewrittenBuffered, rewrittenUnbuffered atomic.Int32

// RewrittenFor is called by the generated helper file of every rewritten
// package, for rewritten code only: buffered says whether it was rewritten
// for store buffers (-memory tso or pso).
func RewrittenFor(buffered bool) bool {
	if buffered {
		rewrittenBuffered.Add(1)
	} else {
		rewrittenUnbuffered.Add(1)
	}
	return true
}

// checkRewrite returns an error if some package of this binary was
// rewritten for another memory model than m.
func checkRewrite(m settings.Memory) error {
	switch {
	case m.Buffered() && rewrittenUnbuffered.Load() > 0:
		return fmt.Errorf("this test binary was rewritten for -memory sc; it cannot run under -memory %s (its stores would bypass the store buffers): rewrite and build it with -memory %s", m, m)
	case !m.Buffered() && rewrittenBuffered.Load() > 0:
		return fmt.Errorf("this test binary was rewritten for -memory tso or pso; it cannot run under -memory %s: rewrite and build it with -memory %s", m, m)
	}
	return nil
}
