package load

import (
	"go/parser"
	"go/token"
	"testing"
)

func TestScanFile(t *testing.T) {
	for _, c := range []struct {
		src  string
		want depUse
	}{
		{"package p\nfunc F(a, b int) int { return a + b }\n", 0},
		{"package p\nimport \"strings\"\nfunc F(s string) string { return strings.ToUpper(s) }\n", 0},
		{"package p\nfunc F(f func()) { go f() }\n", useGo},
		{"package p\nimport \"sync\"\nvar mu sync.Mutex\n", useSync},
		{"package p\nimport \"sync/atomic\"\nvar n atomic.Int64\n", useSync},
		{"package p\nfunc F(c chan int) { c <- 1 }\n", useChan},
		{"package p\nfunc F(d interface{ Done() <-chan struct{} }) { <-d.Done() }\n", useChan},
		{"package p\nimport \"time\"\nfunc F() { time.Sleep(time.Second) }\n", useTimer},
		{"package p\nimport \"time\"\nfunc F() time.Time { return time.Now() }\n", 0},
		{"package p\nimport c \"context\"\nfunc F(ctx c.Context) { c.WithTimeout(ctx, 0) }\n", useTimer},
		{"package p\nimport \"testing\"\nfunc Check(t *testing.T) {}\n", useTesting},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := scanFile(f); got != c.want {
			t.Errorf("%q: %q, want %q", c.src, got, c.want)
		}
	}
}

func TestMatcher(t *testing.T) {
	m := newMatcher([]string{"golang.org/x/sync/...", "example.com/a", "example.com/*/b/..."})
	for path, want := range map[string]int{
		"golang.org/x/sync":          0,
		"golang.org/x/sync/errgroup": 0,
		"golang.org/x/syncx":         -1,
		"example.com/a":              1,
		"example.com/a/c":            -1,
	} {
		if got := m.match(path); got != want {
			t.Errorf("match(%q) = %d, want %d", path, got, want)
		}
	}
}
