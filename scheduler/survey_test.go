package scheduler_test

import (
	"fmt"
	"testing"

	xb "github.com/xbtest/xbtest/scheduler"
)

func TestSurvey(t *testing.T) {
	progs := []struct {
		name string
		f    func(*xb.T)
	}{{"splitsync", splitSync}, {"noeraser", noEraser}, {"deadlock", deadlock}, {"deadlock3", deadlock3},
		{"deadlockwait", deadlockWait}, {"bufferif", bufferIf}, {"buffernotify", bufferNotify},
		{"fig217", fig217}, {"fig220", fig220}, {"fig221", fig221}}
	for _, p := range progs {
		for _, a := range []xb.Algorithm{xb.ExitBlockRWDD, xb.ExitBlockDD} {
			for _, sd := range []bool{true, false} {
				cfg := xb.DefaultConfig()
				cfg.Algorithm, cfg.SyncDeps = a, sd
				res := xb.Explore(p.name, p.f, cfg)
				fmt.Printf("%-13s %-15s sd=%-5v sched=%-6d aborted=%-5d kinds=%v complete=%v %s %v\n", p.name, a, sd, res.Schedules, res.Aborted, res.Kinds(), res.Complete, res.Internal, res.Elapsed)
				if p.name == "deadlockwait" && a == xb.ExitBlockRWDD && sd {
					for _, f := range res.Findings {
						fmt.Println(f)
					}
				}
			}
		}
	}
}
