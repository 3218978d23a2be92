// Package testkit holds the helpers xbtest's own tests share: modules
// written to temporary directories, and the JSON of `xbtest -json` decoded
// into the event types of package result.
package testkit

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
)

// WriteModule writes files (path: content, paths relative to the module's
// root, go.mod included) into a new temporary directory and returns it.
func WriteModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Events are the lines of an `xbtest -json` run, decoded.
type Events struct {
	Findings  []*result.FindingEvent
	Summaries map[string]*result.SummaryEvent // by package/test
	Packages  map[string]*result.PackageEvent // by package
	Total     *result.TotalEvent
	Replays   []*result.ReplayEvent
}

// DecodeEvents decodes the output of `xbtest -json`; a line that is not
// an event of package result fails the test (-json prints only JSON).
func DecodeEvents(t testing.TB, out string) *Events {
	t.Helper()
	ev := &Events{Summaries: map[string]*result.SummaryEvent{}, Packages: map[string]*result.PackageEvent{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		v, err := result.DecodeEvent(sc.Bytes())
		if err != nil {
			t.Fatalf("-json printed %q: %v", sc.Text(), err)
		}
		switch e := v.(type) {
		case *result.FindingEvent:
			ev.Findings = append(ev.Findings, e)
		case *result.SummaryEvent:
			ev.Summaries[e.Package+"/"+e.Test] = e
		case *result.PackageEvent:
			ev.Packages[e.Package] = e
		case *result.TotalEvent:
			ev.Total = e
		case *result.ReplayEvent:
			ev.Replays = append(ev.Replays, e)
		}
	}
	return ev
}

// Kinds are the kinds of the findings of one test (package/test), in the
// order printed.
func (ev *Events) Kinds(test string) []string {
	var ks []string
	for _, f := range ev.Findings {
		if f.Package+"/"+f.Test == test {
			ks = append(ks, string(f.Kind))
		}
	}
	return ks
}

// Relative returns ev with prefix cut from every package path, so that
// tests can name packages relative to their module.
func (ev *Events) Relative(prefix string) *Events {
	out := &Events{Summaries: map[string]*result.SummaryEvent{}, Packages: map[string]*result.PackageEvent{}, Total: ev.Total, Replays: ev.Replays}
	for _, f := range ev.Findings {
		g := *f
		g.Package = strings.TrimPrefix(g.Package, prefix)
		out.Findings = append(out.Findings, &g)
	}
	for _, s := range ev.Summaries {
		c := *s
		c.Package = strings.TrimPrefix(c.Package, prefix)
		out.Summaries[c.Package+"/"+c.Test] = &c
	}
	for _, p := range ev.Packages {
		c := *p
		c.Package = strings.TrimPrefix(c.Package, prefix)
		out.Packages[c.Package] = &c
	}
	return out
}

// Result is the result line of package pkg ("" if it has none).
func (ev *Events) Result(pkg string) string {
	if p := ev.Packages[pkg]; p != nil {
		return p.Result
	}
	return ""
}
