package xbtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// skewedModule's test has a skewed tree (15,598 schedules): three
// goroutines take a lock three, three and two times, so the subtrees
// where the last one runs early are small; an assertion fails on some.
var skewedModule = map[string]string{
	"go.mod": "module skew\n\ngo 1.26\n",
	"skew_test.go": `package skew

import (
	"sync"
	"testing"
)

func TestSkewed(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var order []int
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 - i/2 {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if order[0] == 2 {
		t.Error("the last goroutine ran first")
	}
}
`,
}

// counts are a result's findings by kind and position, with their counts.
func counts(r *result.Result) map[string]int {
	m := map[string]int{}
	for _, f := range r.Findings {
		m[string(f.Kind)+"@"+f.Pos] += f.Count
	}
	return m
}

// TestTeamExploresWhatOneProcessDoes: under -parallel 2 a second process
// joins the test's exploration and claims parts of its tree as it meets
// them; together the two explore exactly what one process does (the
// schedules, aborted attempts, each finding with its count).
func TestTeamExploresWhatOneProcessDoes(t *testing.T) {
	defer func(n int) { joinAfter = n }(joinAfter)
	joinAfter = 0 // join at once: the tree takes a few tenths of a second
	t.Chdir(testkit.WriteModule(t, skewedModule))
	cache := t.TempDir()
	explore := func(parallel int) *result.Result {
		res, err := Run(context.Background(), Options{Packages: []string{"."}, Settings: settings.Default(), Parallel: parallel, ParallelPackages: 1, BuildCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Packages) != 1 || len(res.Packages[0].Tests) != 1 || res.Packages[0].Tests[0].Result == nil {
			t.Fatalf("-parallel %d: %+v", parallel, res.Packages[0])
		}
		return res.Packages[0].Tests[0].Result
	}
	one := explore(1)
	if !one.Complete || one.Schedules != 15598 || len(one.Findings) != 1 || one.Team != nil {
		t.Fatalf("one process: complete %v, %d schedules, findings %v, team %v; want the whole tree, 15598, an assertion", one.Complete, one.Schedules, counts(one), one.Team)
	}
	// Which member claims which part depends on how the OS runs the two
	// processes: on a loaded machine the first can finish the tree before
	// the one that joined (a new process running the top of the tree)
	// reaches its first part. The counts must add up every time; that
	// parts moved to the one that joined is asked of three tries (the
	// exact split under given claims is TestTeamClaimsAddUp's).
	moved := false
	for try := 1; try <= 3 && !moved; try++ {
		two := explore(2)
		if !two.Complete || two.Schedules != one.Schedules || two.Aborted != one.Aborted || !maps.Equal(counts(two), counts(one)) {
			t.Errorf("-parallel 2: complete %v, %d schedules, %d aborted, findings %v; one process: %d, %d, %v",
				two.Complete, two.Schedules, two.Aborted, counts(two), one.Schedules, one.Aborted, counts(one))
		}
		if len(two.Team) != 2 {
			t.Fatalf("-parallel 2: team %+v; want two processes", two.Team)
		}
		// Each member met every part below the split and explored those
		// it claimed first.
		m0, m1 := two.Team[0], two.Team[1]
		if m0.Subtrees+m0.Left != m1.Subtrees+m1.Left || m0.Subtrees+m1.Subtrees == 0 || m0.Schedules+m1.Schedules != two.Schedules {
			t.Errorf("-parallel 2: team %+v; want every part met by both, claimed by one", two.Team)
		}
		moved = m1.Subtrees > 0
		t.Logf("-parallel 2, try %d: %+v", try, two.Team)
	}
	if !moved {
		t.Errorf("-parallel 2: in three tries the process that joined claimed no part of the tree")
	}
}

// TestLanesRunTestsSideBySide: under -parallel 2 a package's tests are
// run by two processes side by side, each exploring the tests it claims
// first: every test is explored once, with the counts and findings of
// one process.
func TestLanesRunTestsSideBySide(t *testing.T) {
	files := map[string]string{"go.mod": skewedModule["go.mod"]}
	for _, name := range []string{"TestFirst", "TestSecond", "TestThird"} {
		files[strings.ToLower(name)+"_test.go"] = strings.Replace(skewedModule["skew_test.go"], "TestSkewed", name, 1)
	}
	t.Chdir(testkit.WriteModule(t, files))
	cache := t.TempDir()
	explore := func(parallel int) []*Test {
		res, err := Run(context.Background(), Options{Packages: []string{"."}, Settings: settings.Default(), Parallel: parallel, ParallelPackages: 1, BuildCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Packages) != 1 || len(res.Packages[0].Tests) != 3 {
			t.Fatalf("-parallel %d: %+v", parallel, res.Packages)
		}
		return res.Packages[0].Tests
	}
	summary := func(ts []*Test) []string {
		var s []string
		for _, tt := range ts {
			if tt.Result == nil {
				t.Fatalf("%s: %s", tt.Name, tt.Problem)
			}
			s = append(s, fmt.Sprintf("%s %v %d %d %v", tt.Name, tt.Result.Complete, tt.Result.Schedules, tt.Result.Aborted, counts(tt.Result)))
		}
		return s
	}
	one := summary(explore(1))
	if len(one) != 3 || !strings.HasPrefix(one[0], "TestFirst true 15598 0 map[assertion@") || !strings.HasPrefix(one[2], "TestThird true 15598 0 map[assertion@") {
		t.Fatalf("one process: %q", one)
	}
	spread := false
	for try := 1; try <= 3 && !spread; try++ {
		ts := explore(2)
		if got := summary(ts); !slices.Equal(got, one) {
			t.Errorf("-parallel 2: %q; one process: %q", got, one)
		}
		lanes := map[int]bool{}
		for _, tt := range ts {
			lanes[tt.lane] = true
		}
		// Which lane takes which test depends on how the OS runs them
		// (the second starts a tenth of a second in): asked of three
		// tries.
		spread = len(lanes) == 2
		t.Logf("-parallel 2, try %d: lanes %v", try, lanes)
	}
	if !spread {
		t.Error("-parallel 2: in three tries one lane explored every test")
	}
}
