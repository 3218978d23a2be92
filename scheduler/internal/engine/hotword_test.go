package engine

import (
	"sync/atomic"
	"testing"
)

// HotWord reads what Hot says: package scheduler's Read and Write test it.
func TestHotWord(t *testing.T) {
	old := hot.Load()
	defer hot.Store(old)
	for _, v := range []bool{true, false, true} {
		hot.Store(v)
		if got := atomic.LoadUint32(HotWord()) != 0; got != v {
			t.Errorf("hot %v, its word says %v", v, got)
		}
	}
}
