package testingobj

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/xbtest/xbtest/internal/runpattern"
)

// Subtests as go test runs them: -run and -skip select them level by level
// (testing's match.go), names are rewritten and made unique as go test
// does, and T.Parallel (testing.go) pauses a subtest until its parent's
// function returns.

// inParallel reports whether t or an ancestor called Parallel.
func (t *T) inParallel() bool {
	for p := t; p != nil; p = p.parent {
		if p.parallel {
			return true
		}
	}
	return false
}

// subName is the full name of t's subtest called name, as go test makes
// it: spaces become underscores, unprintable runes are quoted, and a name
// already used (or empty) gets a #NN suffix.
func (t *T) subName(name string) string {
	if t.subNames == nil {
		t.subNames = map[string]int{}
	}
	full := t.name + "/" + rewriteSubName(name)
	empty := name == ""
	for {
		next, exists := t.subNames[full]
		if !empty && !exists {
			t.subNames[full] = 1
			return full
		}
		t.subNames[full] = next + 1
		full = fmt.Sprintf("%s#%02d", full, next)
		empty = false
	}
}

// rewriteSubName is testing's rewrite: spaces to underscores, other
// unprintable runes quoted.
func rewriteSubName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// subtestFilter is -test.run and -test.skip, split into their levels.
var subtestFilter = sync.OnceValues(func() (run, skip []*regexp.Regexp) {
	return levels("test.run"), levels("test.skip")
})

// levels compiles the value of a testing flag as go test does: split at
// slashes that are outside brackets and parentheses, one expression per
// level. A bad expression was already refused by go test for the top level.
func levels(name string) []*regexp.Regexp {
	f := flag.Lookup(name)
	if f == nil || f.Value.String() == "" {
		return nil
	}
	var out []*regexp.Regexp
	for _, e := range runpattern.Split(f.Value.String()) {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil
		}
		out = append(out, re)
	}
	return out
}

// subtestSelected reports whether the subtest with full name name runs
// under -run and -skip: each of its levels matches -run's expression for
// that level (if there is one), and not every level of -skip matches.
func subtestSelected(name string) bool {
	run, skip := subtestFilter()
	return selected(strings.Split(name, "/"), run, skip)
}

func selected(elems []string, run, skip []*regexp.Regexp) bool {
	for i, e := range elems {
		if i < len(run) && !run[i].MatchString(e) {
			return false
		}
	}
	if len(skip) == 0 || len(elems) < len(skip) {
		return true
	}
	for i, re := range skip {
		if !re.MatchString(elems[i]) {
			return true
		}
	}
	return false
}
