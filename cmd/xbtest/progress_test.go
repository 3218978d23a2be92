package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/result"
)

// fakeProgress is a progress printer on a buffer, with a clock the test
// moves.
func fakeProgress(tty, json bool) (*progress, *bytes.Buffer, *time.Time) {
	var b bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &b, tty: tty, plain: !tty && !json, width: 200, now: func() time.Time { return now },
		running: map[string]xbtest.Status{}, since: map[string]time.Time{}, ended: map[string]bool{}}
	p.start = now
	return p, &b, &now
}

func testStatus(test string, schedules int) xbtest.Status {
	return xbtest.Status{Package: "example.com/p", Test: test, Rate: 1000, Elapsed: 3 * time.Second,
		Progress: result.Progress{Schedules: schedules, Findings: 1, Depth: 7, MaxDepth: 12, Left: 40}}
}

// On a terminal: the build step, then one line per running test,
// rewritten in place, erased when the test ends.
func TestProgressOnATerminal(t *testing.T) {
	p, b, _ := fakeProgress(true, false)
	p.update(xbtest.Status{Step: "rewriting 3 packages"})
	if got := b.String(); got != "rewriting 3 packages (0s)" {
		t.Fatalf("the build step: %q", got)
	}
	b.Reset()
	p.update(testStatus("TestA", 5000))
	want := "\r\x1b[K" + "example.com/p TestA: 5000 schedules, 1000/s, frontier at depth 7 (deepest 12), 1 finding(s), remaining: at least 40 schedules, total unknown, 3s"
	if got := b.String(); got != want {
		t.Fatalf("the test's line:\n got %q\nwant %q", got, want)
	}
	p.update(testStatus("TestB", 10))
	if p.drawn != 2 {
		t.Errorf("%d lines drawn for two running tests", p.drawn)
	}
	b.Reset()
	p.testDone("example.com/p", "TestA")
	p.testDone("example.com/p", "TestB")
	if got := b.String(); got != "\r\x1b[K\x1b[1A\x1b[K" || p.drawn != 0 {
		t.Errorf("ending the tests erased %q, %d lines left", got, p.drawn)
	}
	b.Reset()
	p.update(testStatus("TestA", 6000)) // figures that come in after the end
	if b.Len() != 0 {
		t.Errorf("a test that ended is drawn again: %q", b.String())
	}
}

// Without a terminal: a plain line at most every 10 seconds.
func TestProgressPlain(t *testing.T) {
	p, b, now := fakeProgress(false, false)
	p.update(testStatus("TestA", 1))
	if b.Len() != 0 {
		t.Fatalf("a line before 10 s: %q", b.String())
	}
	for i := range 25 {
		*now = now.Add(time.Second)
		p.update(testStatus("TestA", 100*i))
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("in 25 s, %d lines, want 2:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "xbtest: example.com/p TestA: ") || strings.Contains(l, "\x1b") {
			t.Errorf("not a plain line: %q", l)
		}
	}
}

// Under -json without a terminal: nothing.
func TestProgressJSON(t *testing.T) {
	p, b, now := fakeProgress(false, true)
	for range 30 {
		*now = now.Add(time.Second)
		p.update(testStatus("TestA", 1))
		p.update(xbtest.Status{Step: "building example.com/p"})
	}
	if b.Len() != 0 {
		t.Errorf("progress under -json: %q", b.String())
	}
}
