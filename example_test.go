package xbtest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/settings"
)

// Explore one test of the corpus: the thesis's lock-order deadlock
// (corpus/thesis/deadlock), with the command's default settings, and look
// at what was found.
func ExampleRun() {
	res, err := xbtest.Run(context.Background(), xbtest.Options{
		Packages: []string{"./corpus/thesis/deadlock"},
		Run:      "^TestDeadlock$",
		Settings: settings.Default(),
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Packages {
		for _, t := range p.Tests {
			r := t.Result
			fmt.Printf("%s: %d schedules, complete %v\n", t.Name, r.Schedules, r.Complete)
			for _, f := range r.Findings {
				fmt.Printf("  %s at %s, between %s and %s\n", f.Kind, f.Pos, f.Goroutines[0].ID, f.Goroutines[1].ID)
			}
		}
	}
	// Output:
	// TestDeadlock: 14 schedules, complete true
	//   lock-cycle at deadlock/deadlock.go:32, between T0.2 and T0.1
}
