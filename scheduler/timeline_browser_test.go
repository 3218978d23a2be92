package scheduler_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/internal/timeline"
	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
)

// The timelines of real findings (explored by the scheduler in process,
// each finding carrying the timeline of the replay that verified it),
// rendered and loaded in a headless Chromium, whose DOM must show the
// holders, the waits and the final states.

// timelineOf explores body and returns its finding of kind k with its input.
func timelineOf(t *testing.T, name string, body func(*xb.T), k result.Kind) timeline.Input {
	t.Helper()
	cfg := xb.DefaultConfig()
	cfg.Timelines = true
	res := xb.Explore(name, body, cfg)
	for _, f := range res.Findings {
		if f.Kind != k {
			continue
		}
		if f.Timeline == nil {
			t.Fatalf("the %s finding has no timeline (unreproduced: %q)", k, f.Unreproduced)
		}
		return timeline.Input{Test: name, Package: "timeline_test", Memory: res.Semantics.Memory.String(),
			Algorithm: res.Semantics.Algorithm.String(), Kind: f.Kind, Message: f.Message, Pos: f.Pos, Src: f.Src,
			Decisions: f.Blocks, Outcome: f.Timeline, Goroutines: f.Goroutines}
	}
	t.Fatalf("no %s finding; findings: %v", k, res.Findings)
	return timeline.Input{}
}

// lockCycle: T0.1 takes a then b, T0.2 takes b then a.
func lockCycle(t *xb.T) {
	var wg xb.WaitGroup
	a, b := xb.New(new(xb.Mutex)), xb.New(new(xb.Mutex))
	wg.Add(2)
	xb.Go(func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	})
	xb.Go(func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	})
	wg.Wait()
}

// leak: the test returns while its goroutine waits for a value nobody
// sends.
func leak(t *xb.T) {
	ch := xb.MakeChan[int](0)
	xb.Go(func() {
		xb.Recv(ch)
	})
}

// dumpDOM renders in, loads it in Chromium and returns the DOM after
// loading.
func dumpDOM(t *testing.T, in timeline.Input) string {
	t.Helper()
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium installed (looked for chromium, chromium-browser, google-chrome): the page is not checked in a browser")
	}
	page := filepath.Join(t.TempDir(), "timeline.html")
	var b bytes.Buffer
	if err := timeline.Page(&b, in); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	if d := os.Getenv("XBTEST_TIMELINE_DUMP"); d != "" {
		os.WriteFile(filepath.Join(d, t.Name()+".html"), out, 0o644) // to look at the page after a failure
	}
	return string(out)
}

// has fails t unless the DOM matches each pattern.
func has(t *testing.T, dom string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(dom) {
			t.Errorf("the page has no %s", p)
		}
	}
}

func TestLockCycleInBrowser(t *testing.T) {
	in := timelineOf(t, "TestLockCycle", lockCycle, result.LockCycle)
	dom := dumpDOM(t, in)
	has(t, dom,
		`<th class="lane" data-g="T0.1">`, `<th class="lane" data-g="T0.2">`,
		// each lock's bar in its holder's lane, from its acquisition
		`data-lock="[^"]*mutex#\d+\)?"`, `takes [^<]*mutex#\d+`,
		// the one that failed waits for the holder, with an arrow
		`<tr class="arrow holder" data-label="T0\.\d waits for T0\.\d, which holds [^"]*mutex#\d+\)?">`,
		`<td class="to-[lr]"><span class="head">`,
		// and the holder would wait for it: the cycle
		`<tr class="arrow holder cycle" data-label="T0\.\d would wait for T0\.\d, which holds [^"]*mutex#\d+\)?: the cycle">`,
		// final states
		`<td class="final stuck">blocked on mutex, wants [^<]*mutex#\d+\)? held by T0\.\d; holds [^<]*mutex#\d+\)? at scheduler/timeline_browser_test\.go:\d+</td>`,
		`<tr class="finding">.*lock-cycle`,
	)
	// The two goroutines of the cycle are each other's holders.
	m := regexp.MustCompile(`data-label="(T0\.\d) waits for (T0\.\d)`).FindStringSubmatch(dom)
	c := regexp.MustCompile(`data-label="(T0\.\d) would wait for (T0\.\d)`).FindStringSubmatch(dom)
	if m == nil || c == nil || m[1] != c[2] || m[2] != c[1] {
		t.Errorf("the arrows do not close the cycle: %v and %v", m, c)
	}
}

func TestLeakInBrowser(t *testing.T) {
	in := timelineOf(t, "TestLeak", leak, result.Leak)
	dom := dumpDOM(t, in)
	has(t, dom,
		`<th class="lane" data-g="T0">T0<span class="fin">exited</span>`,
		`<th class="lane" data-g="T0.1">T0.1<span class="fin">leaked: waiting on chan receive at scheduler/timeline_browser_test\.go:\d+</span>`,
		`<td class="final leaked">leaked: waiting on chan receive at scheduler/timeline_browser_test\.go:\d+</td>`,
		`<td class="final exited">exited</td>`,
		// the receive, with its source line
		`<span class="op">[^<]*</span> <span class="pos">scheduler/timeline_browser_test\.go:\d+</span><span class="src">xb\.Recv\(ch\)</span>`,
		`<tr class="finding">.*leak`,
	)
	if strings.Contains(dom, `class="arrow`) {
		t.Errorf("a leak has no waits-for arrow, the page draws one")
	}
}
