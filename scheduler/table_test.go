package scheduler_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// TestCountsTable prints the schedule counts of both Performance ports
// under every algorithm and both -sync-deps settings, for the sizes of
// Tables 4.1 and 4.2 up to 5 threads (bounded at 3 s or 2 million schedules an entry).
// It runs only with XBTEST_TABLE=1 (and -v to see it); the closing note of the scheduler
// issue quotes it.
func TestCountsTable(t *testing.T) {
	if os.Getenv("XBTEST_TABLE") == "" {
		t.Skip("set XBTEST_TABLE=1 to print the table")
	}
	type cfg struct {
		name string
		a    settings.Algorithm
		sd   bool
	}
	cfgs := []cfg{{"rw", settings.ExitBlockRW, false}, {"rw+sd", settings.ExitBlockRW, true}, {"rwdd+sd", settings.ExitBlockRWDD, true}, {"eb", settings.ExitBlock, false}, {"dd", settings.ExitBlockDD, false}, {"dd+sd", settings.ExitBlockDD, true}}
	fmt.Printf("%-6s %-5s", "port", "N L")
	for _, c := range cfgs {
		fmt.Printf(" %12s", c.name)
	}
	fmt.Println()
	for _, port := range []string{"plain", "java"} {
		for _, e := range javasafeTable[:22] { // up to 5 threads
			fmt.Printf("%-6s %-5s", port, fmt.Sprint(e.n, " ", e.l))
			for _, c := range cfgs {
				conf := xb.DefaultConfig()
				conf.Algorithm, conf.SyncDeps = c.a, c.sd
				conf.Timeout, conf.MaxSchedules = 3*time.Second, 2000000
				body := perfPlain(e.n, e.l)
				if port == "java" {
					body = perfJava(e.n, e.l)
				}
				res := xb.Explore("table", body, conf)
				s := fmt.Sprint(res.Schedules)
				if !res.Complete {
					s = ">" + s
				}
				fmt.Printf(" %12s", s)
			}
			fmt.Println()
		}
	}
}
