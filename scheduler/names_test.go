package scheduler_test

import (
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

type account struct {
	id int
	mu xb.Mutex
}

// Locks in lock-cycle reports are named by type and field.
func TestLockNamesInReports(t *testing.T) {
	f := one(t, func(t *xb.T) {
		a, b := xb.New(&account{id: 1}), xb.New(&account{id: 2})
		sp := xb.New(new(spawner))
		defer sp.wg.Wait()
		for _, p := range [][2]*account{{a, b}, {b, a}} {
			sp.goWait(func() {
				p[0].mu.Lock()
				p[1].mu.Lock()
				p[1].mu.Unlock()
				p[0].mu.Unlock()
			})
		}
	}, result.LockCycle, "")
	if !strings.Contains(f.Message, "scheduler_test.account.mu (mutex#") {
		t.Errorf("message %q does not name the locks by field", f.Message)
	}
}
