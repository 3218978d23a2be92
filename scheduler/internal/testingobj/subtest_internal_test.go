package testingobj

import (
	"regexp"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/runpattern"
)

// -run and -skip select subtests level by level, as go test's matcher
// does.
func TestSubtestSelection(t *testing.T) {
	compile := func(p string) []*regexp.Regexp {
		if p == "" {
			return nil
		}
		var out []*regexp.Regexp
		for _, e := range runpattern.Split(p) {
			out = append(out, regexp.MustCompile(e))
		}
		return out
	}
	for _, c := range []struct {
		name, run, skip string
		want            bool
	}{
		{"TestA/sub", "", "", true},
		{"TestA/sub", "TestA", "", true},
		{"TestA/sub", "TestA/sub", "", true},
		{"TestA/sub", "TestA/other", "", false},
		{"TestA/sub/deeper", "TestA/sub", "", true},
		{"TestA/panics_on_x", "TestA$/panics", "", true},
		{"TestA/before_wait", "TestA$/panics", "", false},
		{"TestA/sub", "", "TestA/sub", false},
		{"TestA/sub", "", "TestA/other", true},
		{"TestA", "", "TestA/sub", true},        // partial: the parent runs
		{"TestA/sub/x", "", "TestA/sub", false}, // below a skipped subtest
		{"TestA/a/b", "Test[A/]/a", "", true},   // a slash inside brackets does not split
	} {
		if got := selected(strings.Split(c.name, "/"), compile(c.run), compile(c.skip)); got != c.want {
			t.Errorf("%s under -run %q -skip %q: selected %v, want %v", c.name, c.run, c.skip, got, c.want)
		}
	}
}
