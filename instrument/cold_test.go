package instrument

import (
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/settings"
)

// TestColdPath checks which statements test the hot flag once (rewrite_cold.go):
// those of a list that call nothing and use plain values of this package,
// under -memory sc only.
func TestColdPath(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod": "module example.com/cold\n\ngo 1.22\n",
		"cold.go": `package cold

import "os"

type cell struct{ v int }

type pair struct{ a, b int }

var (
	n  int
	s  []int
	c  *cell
	m  map[int]int
	p  pair
	q  pair
	ch = make(chan int, 1)
)

func g() int { return 1 }

func F(i int) {
	n++
	s[i] += n
	c.v = s[i%2] * 3
	m[i] = c.v
	p.a = n
	n = g()
	n = len(s)
	p = q
	x := n
	n = x
	_ = os.Args
	n = <-ch
	for j := 0; j < 2; j++ {
		n += j
	}
}
`,
	})
	cold := []string{"n++", "s[i] += n", "c.v = s[i%2] * 3", "m[i] = c.v", "p.a = n", "n = x", "n += j"}
	warm := []string{"n = g()", "n = len(s)", "p = q", "_ = os.Args", "n = <-ch"}
	for _, mem := range []settings.Memory{settings.SC, settings.TSO} {
		plan := prepare(t, Options{Dir: dir, Memory: mem})
		for _, st := range cold {
			got := overlayContains(t, plan, "if xb.Cold() { "+st+" } else { ")
			if want := mem == settings.SC; got != want {
				t.Errorf("-memory %s: %q has a cold path: %v, want %v", mem, st, got, want)
			}
		}
		for _, st := range warm {
			if overlayContains(t, plan, "Cold() { "+st+" }") {
				t.Errorf("-memory %s: %q has a cold path", mem, st)
			}
		}
	}
}
