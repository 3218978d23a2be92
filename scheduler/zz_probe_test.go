package scheduler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	xb "github.com/xbtest/xbtest/scheduler"
)

func TestZZProbe(t *testing.T) {
	for _, mb := range []float64{4} {
		cfg := xb.DefaultConfig()
		cfg.Backer = checkpoint.NewFork(true)
		start := time.Now()
		res := xb.Explore("bench", withSetup(mb), cfg)
		fmt.Printf("%gMB auto %v %d sched\n", mb, time.Since(start), res.Schedules)
		for _, n := range res.Notes {
			fmt.Println("   ", n)
		}
	}
}
