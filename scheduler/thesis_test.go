package scheduler_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// perfPlain is Fig 4.1 ported plainly: the test goroutine starts n goroutines
// and returns; each takes and releases l shared mutexes in order.
func perfPlain(n, l int) func(*xb.T) {
	return func(t *xb.T) {
		locks := xb.Slice(make([]xb.Mutex, l))
		for range n {
			xb.Go(func() {
				for j := range locks {
					locks[j].Lock()
					locks[j].Unlock()
				}
			})
		}
	}
}

// perfJava mirrors the lock exits the Java VM adds even under javasafe
// (Definition 4): Thread.start() is synchronized on the Thread object, and
// a dying thread calls notifyAll on its Thread object.
func perfJava(n, l int) func(*xb.T) {
	return func(t *xb.T) {
		locks := xb.Slice(make([]xb.Mutex, l))
		threads := xb.Slice(make([]xb.Mutex, n))
		for i := range n {
			thr := &threads[i]
			thr.Lock()
			xb.Go(func() {
				for j := range locks {
					locks[j].Lock()
					locks[j].Unlock()
				}
				thr.Lock()
				thr.Unlock()
			})
			thr.Unlock()
		}
	}
}

func thesisRW() xb.Config {
	cfg := xb.DefaultConfig()
	cfg.Algorithm, cfg.SyncDeps = settings.ExitBlockRW, false
	return cfg
}

func explore(t *testing.T, name string, body func(*xb.T), cfg xb.Config) *result.Result {
	t.Helper()
	res := xb.Explore(name, body, cfg)
	if res.Internal != "" {
		t.Fatalf("%s: %s", name, res.Internal)
	}
	if !res.Complete {
		t.Fatalf("%s: incomplete (%s) %v", name, res.Bound, res.Warnings)
	}
	return res
}

// Section 2.4.1: with no interaction between blocks, ExitBlock-RW explores
// (L+1)^(N-1) schedules.
func TestPerformancePlainFollowsSection241(t *testing.T) {
	for _, c := range [][2]int{{2, 1}, {2, 2}, {2, 3}, {2, 100}, {3, 1}, {3, 2}, {3, 3}, {3, 10}, {4, 1}, {4, 2}, {4, 3}, {5, 2}, {6, 2}} {
		n, l := c[0], c[1]
		want := 1
		for range n - 1 {
			want *= l + 1
		}
		res := explore(t, "perf", perfPlain(n, l), thesisRW())
		if res.Schedules != want || res.Aborted != 0 || len(res.Findings) != 0 {
			t.Errorf("Performance %d %d: %d schedules, %d aborted, %d findings; want %d, 0, 0", n, l, res.Schedules, res.Aborted, len(res.Findings), want)
		}
	}
}

// The javasafe columns of Tables 4.1 and 4.2, every entry.
var javasafeTable = []struct{ n, l, paths int }{
	{2, 1, 4}, {2, 2, 5}, {2, 3, 6}, {2, 100, 103}, {2, 250, 253}, {2, 500, 503}, {2, 1000, 1003},
	{3, 1, 13}, {3, 2, 21}, {3, 3, 31}, {3, 50, 2757}, {3, 100, 10507},
	{4, 1, 40}, {4, 2, 85}, {4, 3, 156}, {4, 10, 1885}, {4, 20, 11155},
	{5, 1, 121}, {5, 2, 341}, {5, 3, 781}, {5, 4, 1555}, {5, 5, 2801}, {5, 10, 22621},
	{6, 1, 364}, {6, 2, 1365}, {6, 3, 3906}, {6, 5, 19608}, {6, 10, 271453},
	{7, 1, 1093}, {7, 2, 5461}, {7, 3, 19531}, {7, 5, 137257},
	{8, 1, 3280}, {8, 2, 21845}, {8, 3, 97656}, {8, 4, 335923},
	{9, 1, 9841}, {9, 2, 87381}, {10, 1, 29524}, {10, 2, 349525}, {11, 1, 88573}, {12, 1, 265720},
}

func TestPerformanceJavasafeMatchesTables41And42(t *testing.T) {
	for _, e := range javasafeTable {
		if longSuite != (e.paths > 2000) {
			continue // up to 2,000 paths in go test ./..., the rest under -tags long
		}
		res := explore(t, "perf", perfJava(e.n, e.l), thesisRW())
		if res.Schedules != e.paths || res.Aborted != 0 || len(res.Findings) != 0 {
			t.Errorf("Performance %d %d (javasafe): %d schedules, %d aborted, %d findings; the thesis explored %d paths",
				e.n, e.l, res.Schedules, res.Aborted, len(res.Findings), e.paths)
		}
	}
}

// Equation 2.1: ExitBlock explores every interleaving of k threads' n blocks,
// (kn)! / (n!)^k schedules.
func TestExitBlockFollowsEquation21(t *testing.T) {
	fact := func(n int) int {
		f := 1
		for i := 2; i <= n; i++ {
			f *= i
		}
		return f
	}
	for _, c := range [][2]int{{2, 1}, {2, 2}, {2, 3}, {2, 5}, {3, 1}, {3, 2}, {4, 1}, {3, 3}} {
		k, n := c[0], c[1]
		want := fact(k * n)
		for range k {
			want /= fact(n)
		}
		for _, a := range []settings.Algorithm{settings.ExitBlock, settings.ExitBlockDD} {
			cfg := xb.DefaultConfig()
			cfg.Algorithm, cfg.SyncDeps = a, false
			res := explore(t, "perf", perfPlain(k, n), cfg)
			if res.Schedules != want {
				t.Errorf("%s on %d threads of %d blocks: %d schedules, want %d", a, k, n, res.Schedules, want)
			}
		}
	}
}

// lineOf returns "scheduler/<file>:<line>" of the first line of file that
// contains marker.
func lineOf(t *testing.T, file, marker string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, marker) {
			return fmt.Sprintf("scheduler/%s:%d", file, i+1)
		}
	}
	t.Fatalf("%s: no line contains %q", file, marker)
	return ""
}

func kinds(res *result.Result) []result.Kind { return slices.Compact(res.Kinds()) }

// The programs of Ch. 4 find their bugs under ExitBlock-RWDD (the default)
// and ExitBlock-DD, with positions of the original source.
func TestThesisProgramsFindTheirBugs(t *testing.T) {
	assertPos := lineOf(t, "thesis_progs_test.go", `t.Errorf("SplitSync.run`)
	overflowPos := lineOf(t, "thesis_progs_test.go", `t.Errorf("Buffer.enq: buffer overflow!")`)
	for _, c := range []struct {
		name  string
		body  func(*xb.T)
		kinds []result.Kind
		pos   string   // position of the first finding
		ids   []string // goroutines named by the first finding
	}{
		{"SplitSync", splitSync, []result.Kind{result.Assertion}, assertPos, nil},
		{"NoEraser", noEraser, []result.Kind{result.Race}, "", []string{"T0.1", "T0.2"}},
		{"Deadlock", deadlock, []result.Kind{result.LockCycle}, "", []string{"T0.1", "T0.2"}},
		{"Deadlock3", deadlock3, []result.Kind{result.LockCycle}, "", []string{"T0.1", "T0.2", "T0.3"}},
		{"DeadlockWait", deadlockWait, []result.Kind{result.Deadlock}, "", []string{"T0", "T0.1", "T0.2"}},
		{"BufferIf", bufferIf, []result.Kind{result.Assertion, result.Deadlock}, overflowPos, nil},
		{"BufferNotify", bufferNotify, []result.Kind{result.Deadlock}, "", nil},
	} {
		if longSuite != strings.HasPrefix(c.name, "Buffer") {
			continue // the Buffer programs (100,000 schedules each; the corpus explores them too) under -tags long, the rest in go test ./...
		}
		for _, a := range []settings.Algorithm{settings.ExitBlockRWDD, settings.ExitBlockDD} {
			cfg := xb.DefaultConfig()
			cfg.Algorithm = a
			res := explore(t, c.name, c.body, cfg)
			if got := kinds(res); !slices.Equal(got, c.kinds) {
				t.Errorf("%s under %s: findings %v, want %v\n%v", c.name, a, got, c.kinds, res.Findings)
				continue
			}
			if len(res.Findings) == 0 {
				continue
			}
			f := res.Findings[0]
			if c.pos != "" && f.Pos != c.pos {
				t.Errorf("%s under %s: finding at %q, want %q", c.name, a, f.Pos, c.pos)
			}
			var ids []string
			for _, g := range f.Goroutines {
				ids = append(ids, g.ID)
				if g.Pos == "" {
					t.Errorf("%s under %s: goroutine %s has no position: %v", c.name, a, g.ID, f)
				}
			}
			slices.Sort(ids)
			if c.ids != nil && !slices.Equal(ids, c.ids) {
				t.Errorf("%s under %s: finding names goroutines %v, want %v\n%v", c.name, a, ids, c.ids, f)
			}
			if len(f.Blocks) == 0 {
				t.Errorf("%s under %s: finding without its schedule", c.name, a)
			}
		}
	}
}

// Section 2.5: which algorithm finds the deadlocks of Figs 2.17 and 2.20.
func TestSection25DeadlockExamples(t *testing.T) {
	rwddThesis := xb.DefaultConfig()
	rwddThesis.SyncDeps = false
	dd := xb.DefaultConfig()
	dd.Algorithm = settings.ExitBlockDD
	for _, c := range []struct {
		name string
		body func(*xb.T)
		cfg  xb.Config
		want []result.Kind
	}{
		// ExitBlock-DD guarantees to find a deadlock (Theorem 5)...
		{"Fig 2.17 under exitblock-dd", fig217, dd, []result.Kind{result.LockCycle}},
		// ...ExitBlock-RW prunes the branches that show Fig 2.17's (Fig 2.19)...
		{"Fig 2.17 under the thesis's exitblock-rwdd", fig217, rwddThesis, nil},
		// ...unless lock enters count as writes (section 2.6's proposal).
		{"Fig 2.17 under exitblock-rwdd", fig217, xb.DefaultConfig(), []result.Kind{result.LockCycle}},
		{"Fig 2.20 under exitblock-dd", fig220, dd, []result.Kind{result.Deadlock}},
		{"Fig 2.20 under exitblock-rwdd", fig220, xb.DefaultConfig(), []result.Kind{result.Deadlock}},
		// The thesis's ExitBlock-RWDD ends Fig 2.20's deadlocking path with a
		// thread delayed and so must not report it (Fig 2.22).
		{"Fig 2.20 under the thesis's exitblock-rwdd", fig220, rwddThesis, nil},
		{"Fig 2.21 under exitblock-dd", fig221, dd, nil},
		{"Fig 2.21 under exitblock-rwdd", fig221, xb.DefaultConfig(), nil},
		{"Fig 2.21 under the thesis's exitblock-rwdd", fig221, rwddThesis, nil},
	} {
		res := explore(t, c.name, c.body, c.cfg)
		if got := kinds(res); !slices.Equal(got, c.want) {
			t.Errorf("%s: findings %v, want %v\n%v", c.name, got, c.want, res.Findings)
		}
	}
}

// The thesis programs, too, are explored by ExitBlock exactly as exhaustive
// enumeration explores them: the same complete paths, none twice. (ExitBlock
// also ends some paths with a thread still delayed, e.g. when the only
// enabled thread of a branch finds its lock taken; the thesis counts those
// paths, enumeration has no such thing.)
func TestThesisProgramsAgainstTheOracle(t *testing.T) {
	for _, c := range []struct {
		name string
		body func(*xb.T)
	}{{"SplitSync", splitSync}, {"NoEraser", noEraser}, {"Deadlock", deadlock}, {"DeadlockWait", deadlockWait},
		{"Fig217", fig217}, {"Fig220", fig220}, {"Fig221", fig221}} {
		want, _ := xb.Paths(c.body, xb.OracleConfig(false))
		got, partial := xb.Paths(c.body, xb.ThesisConfig(settings.ExitBlockDD))
		slices.Sort(want)
		slices.Sort(got)
		if len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("%s: ExitBlock-DD explores a path twice", c.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: ExitBlock-DD explores %d complete paths (+%d partial), enumeration %d", c.name, len(got), partial, len(want))
		}
		o := explore(t, c.name, c.body, xb.OracleConfig(false))
		e := explore(t, c.name, c.body, xb.ThesisConfig(settings.ExitBlockDD))
		if !slices.Equal(kinds(e), kinds(o)) {
			t.Errorf("%s: ExitBlock-DD finds %v, enumeration %v", c.name, kinds(e), kinds(o))
		}
	}
}
