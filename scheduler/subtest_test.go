package scheduler_test

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// Parallel subtests run after their parent's function returns, alongside
// each other, as under go test: a race between two of them is a race, and
// it is found.
func TestParallelSubtestsRace(t *testing.T) {
	f := one(t, func(t *xb.T) {
		x := new(int64)
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *xb.T) {
				t.Parallel()
				xb.Write(unsafe.Pointer(x), 8, 0)
			})
		}
	}, result.Race, "data race")
	ids := []string{f.Goroutines[0].ID, f.Goroutines[1].ID}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"T0.1", "T0.2"}) {
		t.Errorf("race between %v, want the two subtests T0.1 and T0.2", ids)
	}
}

// Without Parallel, subtests run one after the other: no race.
func TestSequentialSubtestsDoNotRace(t *testing.T) {
	none(t, func(t *xb.T) {
		x := new(int64)
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *xb.T) { xb.Write(unsafe.Pointer(x), 8, 0) })
		}
	})
}

// The order go test gives: Run returns when the subtest calls Parallel;
// the subtest goes on after the parent's function has returned; the
// parent's cleanups run after its parallel subtests end. Each subtest's
// two steps interleave with the other's in every way.
func TestParallelSubtestOrder(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			var log []string
			mu := new(xb.Mutex)
			add := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
			// The lock first: an execution that ends early (a failed lock
			// enter) unwinds its goroutines, running their cleanups, and
			// a hook there stops the unwinding cleanup.
			t.Cleanup(func() { mu.Lock(); out(strings.Join(log, " ")); mu.Unlock() })
			for _, name := range []string{"a", "b"} {
				ok := t.Run(name, func(t *xb.T) {
					add(name + "0")
					t.Parallel()
					add(name + "1")
					add(name + "2")
				})
				add("ran-" + name + "-" + map[bool]string{true: "ok", false: "failed"}[ok])
			}
			add("parent-end")
		}
	})
	want := []string{}
	// a0 and b0 run before Run returns; a1 a2 and b1 b2 interleave after
	// the parent's end.
	for _, tail := range []string{"a1 a2 b1 b2", "a1 b1 a2 b2", "a1 b1 b2 a2", "b1 a1 a2 b2", "b1 a1 b2 a2", "b1 b2 a1 a2"} {
		want = append(want, "a0 ran-a-ok b0 ran-b-ok parent-end "+tail)
	}
	if !slices.Equal(got, want) {
		t.Errorf("orders:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParallelTwicePanics(t *testing.T) {
	one(t, func(t *xb.T) {
		t.Run("a", func(t *xb.T) {
			t.Parallel()
			t.Parallel()
		})
	}, result.Panic, "t.Parallel called multiple times")
}

func TestSetenvInParallelSubtestPanics(t *testing.T) {
	one(t, func(t *xb.T) {
		t.Run("a", func(t *xb.T) {
			t.Parallel()
			t.Setenv("XBTEST_SUBTEST_CHECK", "1")
		})
	}, result.Panic, "t.Setenv called after t.Parallel")
}

// A failure in a parallel subtest fails its parent too.
func TestParallelSubtestFailure(t *testing.T) {
	f := one(t, func(t *xb.T) {
		t.Run("a", func(t *xb.T) {
			t.Parallel()
			t.Errorf("subtest failed")
		})
	}, result.Assertion, "subtest failed")
	if f.Goroutines[0].ID != "T0.1" {
		t.Errorf("failure on %s, want T0.1", f.Goroutines[0].ID)
	}
}

// Subtest names as go test makes them: spaces rewritten, repeats numbered.
func TestSubtestNames(t *testing.T) {
	got := reach(t, func(out func(string)) func(*xb.T) {
		return func(t *xb.T) {
			var names []string
			for _, n := range []string{"a b", "a b", "a_b", "", ""} {
				t.Run(n, func(t *xb.T) { names = append(names, t.Name()) })
			}
			out(strings.Join(names, ","))
		}
	})
	n := t.Name()
	want := n + "/a_b," + n + "/a_b#01," + n + "/a_b#02," + n + "/#00," + n + "/#01"
	if len(got) != 1 || got[0] != want {
		t.Errorf("names %q, want %q", got, want)
	}
}
