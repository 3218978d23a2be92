package runpattern

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"TestA":             {"TestA"},
		"TestA/sub":         {"TestA", "sub"},
		`a(b/c)/[d/e]/f\/g`: {"a(b/c)", "[d/e]", `f\/g`},
		"TestA$/panics/":    {"TestA$", "panics", ""},
	} {
		if got := Split(in); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}
