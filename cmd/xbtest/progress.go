package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xbtest/xbtest"
)

// Progress on stderr. On a terminal: one line per test under way (or the
// build step under way), rewritten in place about once a second and erased
// when the test ends, before anything else is printed. Otherwise: a plain
// line at most every plainEvery, and none at all under -json, whose
// readers want nothing but the JSON on stdout and the errors on stderr.

const plainEvery = 10 * time.Second

type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	plain   bool // print plain lines (no terminal, not -json)
	width   int  // the terminal's columns: a line that wraps could not be erased
	now     func() time.Time
	start   time.Time
	running map[string]xbtest.Status // by key: the build step (""), or package and test
	since   map[string]time.Time     // when each entry appeared
	order   []string
	ended   map[string]bool // tests reported done: late figures are dropped
	drawn   int             // lines on the terminal now
	last    time.Time       // the last plain line
	stop    chan struct{}
	stopped chan struct{}
}

// newProgress returns the progress printer for stderr, and starts its
// ticker (stop it with close).
func newProgress(stderr io.Writer, json bool) *progress {
	p := &progress{w: stderr, now: time.Now, running: map[string]xbtest.Status{}, since: map[string]time.Time{}, ended: map[string]bool{}}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb" {
			p.tty, p.width = true, termWidth(f)
		}
	}
	p.plain = !p.tty && !json
	p.start = p.now()
	if p.tty || p.plain {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

func (p *progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.show()
			p.mu.Unlock()
		}
	}
}

// close erases what is drawn and stops the ticker.
func (p *progress) close() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

func key(pkg, test string) string { return pkg + " " + test }

// update takes a status from the run.
func (p *progress) update(s xbtest.Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := ""
	if s.Step == "" {
		k = key(s.Package, s.Test)
		if p.ended[k] {
			return
		}
		p.drop("") // a test runs: the build is over
	}
	if _, ok := p.running[k]; !ok {
		p.order = append(p.order, k)
		p.since[k] = p.now()
	} else if s.Step != "" && p.running[k].Step != s.Step {
		p.since[k] = p.now()
	}
	p.running[k] = s
	p.show()
}

// testDone erases a test's line (call it before printing the test's report).
func (p *progress) testDone(pkg, test string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := key(pkg, test)
	p.ended[k] = true
	p.drop(k)
	p.drop("")
	p.erase()
}

// pkgDone erases what is left of a package's lines.
func (p *progress) pkgDone(pkg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range slices.Clone(p.order) {
		if k == "" || strings.HasPrefix(k, pkg+" ") {
			p.drop(k)
		}
	}
	p.erase()
}

// quiet erases the lines while f prints something else, then draws them
// again.
func (p *progress) quiet(f func()) {
	p.mu.Lock()
	p.erase()
	p.mu.Unlock()
	f()
	p.mu.Lock()
	p.show()
	p.mu.Unlock()
}

func (p *progress) drop(k string) {
	delete(p.running, k)
	delete(p.since, k)
	p.order = slices.DeleteFunc(p.order, func(o string) bool { return o == k })
}

// show draws the lines on a terminal, or prints a plain line when one is due.
func (p *progress) show() {
	now := p.now()
	var lines []string
	for _, k := range p.order {
		lines = append(lines, p.line(p.running[k], now.Sub(p.since[k])))
	}
	switch {
	case p.tty:
		p.erase()
		for i, l := range lines {
			if p.width > 1 && len([]rune(l)) > p.width-1 {
				l = string([]rune(l)[:p.width-2]) + "…"
			}
			if i > 0 {
				fmt.Fprint(p.w, "\n")
			}
			fmt.Fprint(p.w, l)
		}
		p.drawn = len(lines)
	case p.plain:
		if len(lines) == 0 || now.Sub(p.start) < plainEvery || now.Sub(p.last) < plainEvery {
			return
		}
		p.last = now
		for _, l := range lines {
			fmt.Fprintf(p.w, "xbtest: %s\n", l)
		}
	}
}

// erase removes the drawn lines from the terminal.
func (p *progress) erase() {
	if !p.tty || p.drawn == 0 {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K"+strings.Repeat("\x1b[1A\x1b[K", p.drawn-1))
	p.drawn = 0
}

// line describes one status.
func (p *progress) line(s xbtest.Status, d time.Duration) string {
	if s.Step != "" {
		return fmt.Sprintf("%s (%s)", s.Step, d.Round(time.Second))
	}
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s %s: %d schedules, %.0f/s, frontier at depth %d (deepest %d), %d finding(s)", s.Package, s.Test, s.Schedules, s.Rate, s.Depth, s.MaxDepth, s.Findings)
	// The branches left on the explorer's stack are a lower bound of the
	// schedules left; how big each subtree is nobody knows before
	// exploring it.
	if s.Left > 0 {
		fmt.Fprintf(b, ", remaining: at least %d schedules, total unknown", s.Left)
	} else {
		fmt.Fprint(b, ", remaining: unknown")
	}
	fmt.Fprintf(b, ", %s", s.Elapsed.Round(time.Second))
	return b.String()
}
