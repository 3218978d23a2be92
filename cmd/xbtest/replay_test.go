package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// replayJSON runs xbtest -replay FILE -json in dir and returns its status,
// the finding line (nil if none), the replay line (nil if none) and stderr.
func replayJSON(t *testing.T, dir, file string, extra ...string) (int, *result.FindingEvent, *result.ReplayEvent, string) {
	t.Helper()
	status, stdout, stderr := runIn(t, dir, append([]string{"-json", "-replay", file}, extra...)...)
	finding, rep := replayEvents(t, stdout)
	return status, finding, rep, stderr
}

// replayEvents returns the finding line (nil if none) and the replay line
// (nil if none) of xbtest -replay -json's output.
func replayEvents(t *testing.T, stdout string) (*result.FindingEvent, *result.ReplayEvent) {
	t.Helper()
	ev := testkit.DecodeEvents(t, stdout)
	var finding *result.FindingEvent
	var rep *result.ReplayEvent
	if n := len(ev.Findings); n > 0 {
		finding = ev.Findings[n-1]
	}
	if n := len(ev.Replays); n > 0 {
		rep = ev.Replays[n-1]
	}
	return finding, rep
}

// buildCommand builds xbtest into a temporary directory (run in the
// package's directory, as go test starts a test).
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "xbtest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// checkReplays replays every schedule file a corpus run wrote into dir (n
// findings), each with the xbtest binary bin in a process of its own (in
// parallel subtests): the same kind at the same position, with the same
// message, exit status 1. Outside the long suite one file of each kind of
// finding is replayed so (each is a build): every finding was replayed in
// the test binary before it was reported (its JSON line says when that did
// not lead to it again, which the corpus checks).
func checkReplays(t *testing.T, bin, dir string, n int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != n {
		t.Errorf("%d schedule files for %d findings", len(files), n)
	}
	if !longSuite {
		seen := map[string]bool{}
		files = slices.DeleteFunc(files, func(f string) bool {
			s, err := replay.Read(f)
			if err != nil {
				return false
			}
			k := string(s.Finding.Kind)
			if seen[k] {
				return true
			}
			seen[k] = true
			return false
		})
	}
	for _, f := range files {
		t.Run("replay "+filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			s, err := replay.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-json", "-replay", f}
			if corpusCache != "" {
				args = append([]string{"-cache", corpusCache}, args...)
			}
			status, stdout, stderr := runCommand(t, bin, t.TempDir(), args...)
			finding, rep := replayEvents(t, stdout)
			if status != exitFindings || finding == nil || rep == nil || !rep.Reproduced {
				t.Fatalf("status %d, finding %+v, replay %+v\n%s", status, finding, rep, stderr)
			}
			if finding.Kind != s.Finding.Kind || finding.Pos != s.Finding.Pos || finding.Message != s.Finding.Message {
				t.Errorf("replayed %v at %v: %q; recorded %s at %s: %q", finding.Kind, finding.Pos, finding.Message, s.Finding.Kind, s.Finding.Pos, s.Finding.Message)
			}
		})
	}
}

// decisionModule has findings that need each kind of decision a schedule
// file records besides the goroutine of a block, and one whose message
// shows what else the program can observe.
var decisionModule = map[string]string{
	"go.mod": "module example.com/dec\n\ngo 1.23\n",
	// Under PSO the flag's store commits before the data's: a flush.
	"mp/mp_test.go": `package mp

import (
	"sync"
	"testing"
)

func TestMP(t *testing.T) {
	var data, flag, r0, r1 int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		data = 1
		flag = 1
	}()
	go func() {
		defer wg.Done()
		r0 = flag
		r1 = data
	}()
	wg.Wait()
	if r0 == 1 && r1 == 0 {
		t.Errorf("saw the flag but not the data")
	}
}
`,
	// Two timers due at the same instant: the order they fire in.
	"tick/tick_test.go": `package tick

import (
	"testing"
	"time"
)

func TestTimerOrder(t *testing.T) {
	done := make(chan bool)
	go func() { done <- true }()
	<-done
	t1 := time.NewTimer(time.Second)
	t2 := time.NewTimer(time.Second)
	select {
	case <-t1.C:
	case <-t2.C:
		t.Errorf("the second timer fired first")
	}
}
`,
	// What the finding's message shows comes out the same on replay:
	// the goroutines' order, a select choice, map order (range and
	// maps.Keys), math/rand, the clock.
	"obs/obs_test.go": `package obs

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestObserve(t *testing.T) {
	m := map[int]int{}
	for i := range 100 {
		m[i*7%100] = i
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	a, b := make(chan int, 1), make(chan int, 1)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, g)
			mu.Unlock()
			if g == 0 {
				a <- 1
			} else {
				b <- 2
			}
		}()
	}
	wg.Wait()
	sel := 0
	select {
	case sel = <-a:
	case sel = <-b:
	}
	var ranged []int
	for k, v := range m {
		ranged = append(ranged, k, v)
	}
	keys := slices.Collect(maps.Keys(m))
	if sel == 2 && order[0] == 1 {
		t.Errorf("%v", fmt.Sprint("order ", order, " ranged ", ranged[:10], " keys ", keys[:10], " rand ", rand.Intn(1e9), " ", time.Now().UnixNano()))
	}
}
`,
}

// TestReplayDecisionKinds records findings that need a store-buffer
// flush (-memory pso), a timer order and select and goroutine choices, and
// replays each in a fresh process: the same finding, with the same message
// (what the program saw), at the same position. The flush is anchored to
// the store it commits, the replay's steps show virtual time advancing, and
// the trace has a lane for the store buffer.
func TestReplayDecisionKinds(t *testing.T) {
	dir := testkit.WriteModule(t, decisionModule)
	out := t.TempDir()
	if status, stdout, stderr := runIn(t, dir, "-o", out, "-memory", "pso", "-race", "off", "./mp"); status != exitFindings {
		t.Fatalf("recording mp: status %d\n%s\n%s", status, stdout, stderr)
	}
	if status, stdout, stderr := runIn(t, dir, "-o", out, "./tick", "./obs"); status != exitFindings {
		t.Fatalf("recording tick, obs: status %d\n%s\n%s", status, stdout, stderr)
	}
	// A sampling strategy's finding (pct; its schedule holds a flush)
	// writes a schedule file like any other: -replay follows it whatever
	// the strategy, and the summary says what the run proved. (The build
	// is the one above, cached.)
	sampled := t.TempDir()
	status, stdout, stderr := runIn(t, dir, "-json", "-o", sampled, "-strategy", "pct", "-seed", "3", "-samples", "300", "-memory", "pso", "-race", "off", "./mp")
	if status != exitFindings {
		t.Fatalf("recording mp under pct: status %d\n%s\n%s", status, stdout, stderr)
	}
	if s := testkit.DecodeEvents(t, stdout).Summaries["example.com/dec/mp/TestMP"]; s == nil || s.Strategy != "pct" || s.Seed != 3 || s.Complete || s.Bound != result.BoundSamples || s.Schedules != 300 {
		t.Errorf("pct summary: %+v", s)
	}
	if err := os.Rename(filepath.Join(sampled, "mp.TestMP.1.json"), filepath.Join(out, "mp.TestMP.pct.json")); err != nil {
		t.Fatal(err)
	}
	files := map[string]*replay.Schedule{}
	for _, name := range []string{"mp.TestMP.1.json", "tick.TestTimerOrder.1.json", "obs.TestObserve.1.json", "mp.TestMP.pct.json"} {
		s, err := replay.Read(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = s
	}
	if n, _ := filepath.Glob(filepath.Join(out, "*.json")); len(n) != len(files) {
		t.Errorf("schedule files %v", n)
	}
	flush := slices.IndexFunc(files["mp.TestMP.1.json"].Decisions, func(d result.Block) bool { return d.Goroutine == "T0.1 store buffer" })
	if flush < 0 {
		t.Errorf("mp: no flush in %+v", files["mp.TestMP.1.json"].Decisions)
	} else if d := files["mp.TestMP.1.json"].Decisions[flush]; d.Op != "flush" || d.Pos != "mp/mp_test.go:15" || d.Src != "flag = 1" {
		t.Errorf("mp: the flush is anchored at %s %s (%s), want flush mp/mp_test.go:15 (flag = 1)", d.Op, d.Pos, d.Src)
	}
	for _, name := range []string{"tick.TestTimerOrder.1.json", "obs.TestObserve.1.json"} {
		if !slices.ContainsFunc(files[name].Decisions, func(d result.Block) bool { return len(d.Choices) > 0 }) {
			t.Errorf("%s: no choices in %+v", name, files[name].Decisions)
		}
	}
	html := filepath.Join(t.TempDir(), "mp.html")
	for name, s := range files {
		var extra []string
		if name == "mp.TestMP.1.json" {
			extra = []string{"-trace", html}
		}
		status, finding, rep, stderr := replayJSON(t, t.TempDir(), filepath.Join(out, name), extra...)
		if status != exitFindings || finding == nil || rep == nil || !rep.Reproduced {
			t.Errorf("%s: status %d, finding %+v, replay %+v\n%s", name, status, finding, rep, stderr)
			continue
		}
		// Every goroutine's final state comes with the steps.
		if !slices.ContainsFunc(rep.Final, func(g result.Goroutine) bool { return g.ID == "T0" && g.State != "" }) {
			t.Errorf("%s: final states %+v", name, rep.Final)
		}
		if finding.Kind != s.Finding.Kind || finding.Pos != s.Finding.Pos || finding.Message != s.Finding.Message {
			t.Errorf("%s: replayed %v at %v: %q; recorded %s at %s: %q", name, finding.Kind, finding.Pos, finding.Message, s.Finding.Kind, s.Finding.Pos, s.Finding.Message)
		}
		if name == "tick.TestTimerOrder.1.json" {
			steps := rep.Steps
			if !slices.ContainsFunc(steps, func(st result.TraceStep) bool {
				return st.G == "" && st.Op == "time advances to +1s"
			}) {
				t.Errorf("tick: no step where time advances in %v", steps)
			}
		}
	}
	b, _ := os.ReadFile(html)
	if !strings.Contains(string(b), `<th class="lane buf" data-g="T0.1 store buffer">`) || !strings.Contains(string(b), `<span class="op">flush</span> <span class="pos">mp/mp_test.go:15</span>`) ||
		!strings.Contains(string(b), `commits to memory:<ol><li>flag = 1 (mp/mp_test.go:15)</li></ol>`) {
		t.Errorf("mp trace has no store-buffer lane with the flush:\n%s", b)
	}
}

const editUnused = `
// unused is never called: editing it changes nothing xbtest sees.
func unused() string { return "before" }
`

// TestReplayAfterEdits: a schedule still replays after edits that do not
// change it (a line inserted above everything, an unexecuted function, a
// t.Log), and reports the divergence, exit 2, after one that does.
func TestReplayAfterEdits(t *testing.T) {
	if !longSuite {
		t.Skip("long suite (go test -tags long); TestCorpusReplayAfterEdits edits corpus programs")
	}
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":        "module example.com/ext\n\ngo 1.22\n",
		"lu/lu.go":      extLostUpdate + editUnused,
		"lu/lu_test.go": extLostUpdateTest,
	})
	out := t.TempDir()
	if status, stdout, stderr := runIn(t, dir, "-o", out, "./lu"); status != exitFindings || !strings.Contains(stdout, "Replay:   xbtest -replay ") {
		t.Fatalf("recording: status %d\n%s\n%s", status, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		t.Fatalf("schedule files %v", files)
	}
	file := files[0]
	s, err := replay.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if s.Finding.Kind != "assertion" || s.Finding.Pos != "lu/lu_test.go:17" {
		t.Fatalf("recorded %s at %s", s.Finding.Kind, s.Finding.Pos)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, want int, wantOut ...string) string {
		t.Helper()
		status, stdout, stderr := runIn(t, dir, "-replay", file)
		if status != want {
			t.Fatalf("%s: status %d, want %d\n%s\n%s", what, status, want, stdout, stderr)
		}
		for _, w := range wantOut {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: output does not say %q:\n%s", what, w, stdout)
			}
		}
		return stdout
	}
	if out := expect("as recorded", exitFindings, "XBTEST: ASSERTION in TestTwoIncrements", "lost update: counter is 1", "at lu/lu_test.go:17"); strings.Contains(out, "the message has changed") {
		t.Errorf("as recorded, the replay says the message has changed:\n%s", out)
	}

	// The assertion's message, in place: the same finding, which says so.
	write("lu/lu_test.go", strings.Replace(extLostUpdateTest, `"lost update: counter is %d"`, `"lost update, counter = %d"`, 1))
	expect("after an edit of the message", exitFindings, "lost update, counter = 1", "at lu/lu_test.go:17",
		`xbtest: the same assertion at the same place, but the message has changed since the schedule was recorded: it was "lost update: counter is 1"`)

	write("lu/lu.go", "// An inserted line moves every line below it.\n"+extLostUpdate+strings.Replace(editUnused, "before", "after", 1))
	write("lu/lu_test.go", strings.Replace(extLostUpdateTest, "\tvar c Counter\n", "\tt.Log(\"an added log line\")\n\tvar c Counter\n", 1))
	expect("after unrelated edits", exitFindings, "XBTEST: ASSERTION in TestTwoIncrements", "at lu/lu_test.go:18")

	// One more critical section in Inc: the first goroutine's block no
	// longer ends where the schedule says.
	write("lu/lu.go", strings.Replace(extLostUpdate, "\tc.mu.Lock()\n\tv := c.n", "\tc.mu.Lock()\n\tc.mu.Unlock()\n\tc.mu.Lock()\n\tv := c.n", 1))
	expect("after an edit of the schedule", exitError, "replay diverged", "block 2: T0.2 was to end at exit, but its scheduling point 4 is WaitGroup.Done at lu/lu_test.go:14", "--- DIVERGED: TestTwoIncrements")

	write("lu/lu_test.go", strings.Replace(extLostUpdateTest, "TestTwoIncrements", "TestRenamed", 1))
	if status, _, stderr := runIn(t, dir, "-replay", file); status != exitError || !strings.Contains(stderr, "test TestTwoIncrements did not run in example.com/ext/lu (renamed or removed?)\n") {
		t.Errorf("renamed test: status %d, stderr %q", status, stderr)
	}
}

// TestReplayBadFiles: a file that cannot be trusted is refused with a
// clear message and exit status 2, before anything is built.
func TestReplayBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	s := &replay.Schedule{Package: "example.com/p", Test: "TestX", Finding: replay.Finding{Want: result.Want{Kind: result.Deadlock}},
		Decisions: []result.Block{{Kind: result.DecisionBlock, Goroutine: "T0", Points: 1}}}
	p, err := replay.Write(dir, "p", s, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	os.WriteFile(good, b, 0o644)
	for name, c := range map[string]struct{ content, want string }{
		"corrupt":   {"{\"version\": 2, garbage", "corrupt or truncated"},
		"truncated": {string(b[:len(b)*2/3]), "corrupt or truncated"},
		"newer":     {strings.Replace(string(b), `"version": 2`, `"version": 3`, 1), "version 3 is newer than this xbtest's (2)"},
		"kind":      {strings.Replace(string(b), `"kind": "block"`, `"kind": "warp"`, 1), `decision 0 has kind "warp", which this xbtest cannot replay`},
	} {
		f := filepath.Join(dir, name+".json")
		os.WriteFile(f, []byte(c.content), 0o644)
		status, stdout, stderr := runIn(t, dir, "-replay", f)
		if status != exitError || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%s: status %d, stderr %q, stdout %q; want 2 and %q", name, status, stderr, stdout, c.want)
		}
	}
	if status, _, stderr := runIn(t, dir, "-replay", filepath.Join(dir, "missing.json")); status != exitError || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: status %d, %q", status, stderr)
	}
	if status, _, stderr := runIn(t, dir, "-replay", good, "./pkg"); status != exitError || !strings.Contains(stderr, "name no packages") {
		t.Errorf("packages with -replay: status %d, %q", status, stderr)
	}
}

// TestReplayTrace writes the HTML timeline of a replay and, if a Chromium
// is installed, checks that it renders with one lane per goroutine and the
// finding marked.
func TestReplayTrace(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":        "module example.com/ext\n\ngo 1.22\n",
		"dl/dl.go":      extDeadlock,
		"dl/dl_test.go": extDeadlockTest,
	})
	out := t.TempDir()
	if status, stdout, stderr := runIn(t, dir, "-o", out, "./dl"); status != exitFindings {
		t.Fatalf("recording: status %d\n%s\n%s", status, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) == 0 {
		t.Fatal("no schedule file")
	}
	html := filepath.Join(t.TempDir(), "trace.html")
	status, stdout, stderr := runIn(t, dir, "-v", "-replay", files[0], "-trace", html)
	if status != exitFindings {
		t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
	}
	// -v prints every step: goroutine, operation, position.
	if !regexp.MustCompile(`(?m)^\s+\d+\s+block \d+\s+T0\.\d\s+Mutex\.Unlock\s+dl/dl\.go:\d+$`).MatchString(stdout) {
		t.Errorf("no step lines in\n%s", stdout)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, w := range []string{`class="lane" data-g="T0"`, `class="lane" data-g="T0.1"`, `<tr class="finding">`, "lock-cycle"} {
		if !strings.Contains(page, w) {
			t.Errorf("trace lacks %s", w)
		}
	}
	browser := ""
	for _, b := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if _, err := os.Stat(b); err == nil {
			browser = b
			break
		}
	}
	if browser == "" {
		t.Skip("no headless Chromium installed: the page was checked as text only")
	}
	// The page as the browser parsed it: one lane per goroutine, in order,
	// and one finding row.
	dom := string(chromium(t, browser, "--dump-dom", "file://"+html))
	var lanes []string
	for _, m := range regexp.MustCompile(`<th class="lane" data-g="([^"]+)">`).FindAllStringSubmatch(dom, -1) {
		lanes = append(lanes, m[1])
	}
	if !slices.Equal(lanes, []string{"T0", "T0.1", "T0.2"}) {
		t.Errorf("rendered lanes %v, want T0 T0.1 T0.2", lanes)
	}
	if n := strings.Count(dom, `<tr class="finding">`); n != 1 || !strings.Contains(dom, "lock-cycle at dl/dl.go:") {
		t.Errorf("%d finding rows in the rendered page:\n%s", n, dom)
	}
	// The page as the browser painted it: the finding's row and the
	// goroutines' steps have their colours on the screen.
	shot := filepath.Join(t.TempDir(), "trace.png")
	chromium(t, browser, "--window-size=1000,800", "--screenshot="+shot, "file://"+html)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	finding, step := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			switch r, g, b, _ := img.At(x, y).RGBA(); [3]uint32{r >> 8, g >> 8, b >> 8} {
			case [3]uint32{0xff, 0xdd, 0xdd}: // tr.finding
				finding++
			case [3]uint32{0xee, 0xf5, 0xff}: // td.on, a goroutine's step
				step++
			}
		}
	}
	if finding < 5000 || step < 5000 {
		t.Errorf("the screenshot shows %d pixels of the finding's row and %d of steps; want a painted table", finding, step)
	}
}

// chromium runs a headless Chromium with a fresh profile and no network
// features, and returns its standard output.
func chromium(t *testing.T, browser string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a safety net, not a measurement
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", browser, args, err, stderr.String())
	}
	return out
}

// TestScheduleSize: the report gives the size of a finding's schedule and
// says what minimisation made of it.
func TestScheduleSize(t *testing.T) {
	blocks := []result.Block{{Goroutine: "T0"}, {Goroutine: "T0.1", Preempt: true}, {Goroutine: "T0", Mid: true}}
	for _, c := range []struct {
		sh   *result.Shortened
		want string
		from *result.Size
	}{
		{nil, "3 blocks, 1 preemptions", nil},
		{&result.Shortened{Blocks: 3, Preemptions: 1, Tries: 4}, "3 blocks, 1 preemptions; no shorter one in 4 tries", nil},
		{&result.Shortened{Blocks: 9, Preemptions: 5, Tries: 12}, "3 blocks, 1 preemptions; shortened from 9 blocks, 5 preemptions", &result.Size{Blocks: 9, Preemptions: 5}},
		{&result.Shortened{Blocks: 9, Preemptions: 5, Tries: 2, Stopped: true}, "3 blocks, 1 preemptions; shortened from 9 blocks, 5 preemptions in 2 tries, when shortening reached its time bound", &result.Size{Blocks: 9, Preemptions: 5}},
		{&result.Shortened{Blocks: 3, Preemptions: 1, Stopped: true}, "3 blocks, 1 preemptions; no shorter one in 0 tries, when shortening reached its time bound", nil},
	} {
		f := &result.Finding{Kind: result.Assertion, Blocks: blocks, Shortened: c.sh}
		if got := scheduleSize(f); got != c.want {
			t.Errorf("scheduleSize = %q, want %q", got, c.want)
		}
		var out bytes.Buffer
		rp := &reporter{out: &out, o: &options{json: true}, cwd: "/w"}
		rp.finding("p", &result.Result{Test: "TestX"}, f, "/w/xbtest-out/p.TestX.1.json", "")
		ev, err := result.DecodeEvent(out.Bytes())
		if err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		got, ok := ev.(*result.FindingEvent)
		if !ok || got.Size == nil {
			t.Fatalf("decoded %T %+v from %s", ev, ev, out.String())
		}
		want := result.Size{Blocks: 3, Preemptions: 1, From: c.from, ShorteningStopped: c.sh != nil && c.sh.Stopped}
		if !reflect.DeepEqual(*got.Size, want) || got.Replay != "xbtest-out/p.TestX.1.json" {
			t.Errorf("JSON %s, want size %+v", out.String(), want)
		}
	}
}

const twoOutcomes = `package config

import (
	"sync"
	"testing"
)

func TestNew(t *testing.T) {
	var mu sync.Mutex
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); mu.Lock(); x = 1; mu.Unlock() }()
	mu.Lock()
	seen := x
	mu.Unlock()
	wg.Wait()
	if seen == 1 {
		t.Errorf("PKG saw 1")
	}
	if seen == 0 {
		t.Errorf("PKG saw 0")
	}
}
`

// TestScheduleFileNames: packages with the same name get files of their
// own, and a new run of a test removes the files of the findings it no
// longer has.
func TestScheduleFileNames(t *testing.T) {
	if !longSuite {
		t.Skip("long suite (go test -tags long)")
	}
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":                  "module example.com/names\n\ngo 1.22\n",
		"a/config/config_test.go": strings.ReplaceAll(twoOutcomes, "PKG", "a"),
		"b/config/config_test.go": strings.ReplaceAll(twoOutcomes, "PKG", "b"),
	})
	out := t.TempDir()
	record := func(wantFiles ...string) {
		t.Helper()
		status, stdout, stderr := runIn(t, dir, "-json", "-o", out, "./...")
		if status != exitFindings {
			t.Fatalf("status %d\n%s\n%s", status, stdout, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		var names []string
		for _, f := range files {
			names = append(names, filepath.Base(f))
		}
		if !slices.Equal(names, wantFiles) {
			t.Fatalf("files %v, want %v", names, wantFiles)
		}
		// Each finding names the file that holds its own schedule.
		for _, ev := range testkit.DecodeEvents(t, stdout).Findings {
			file := ev.Replay
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			s, err := replay.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			if s.Package != ev.Package || s.Finding.Message != ev.Message {
				t.Errorf("finding %v of %v: its file %s holds %q of %s", ev.Message, ev.Package, ev.Replay, s.Finding.Message, s.Package)
			}
		}
	}
	record("a_config.TestNew.1.json", "a_config.TestNew.2.json", "b_config.TestNew.1.json", "b_config.TestNew.2.json")
	// b's second check is fixed: its second file goes.
	fixed := strings.ReplaceAll(strings.Replace(twoOutcomes, "\tif seen == 0 {\n\t\tt.Errorf(\"PKG saw 0\")\n\t}\n", "", 1), "PKG", "b")
	if err := os.WriteFile(filepath.Join(dir, "b/config/config_test.go"), []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	record("a_config.TestNew.1.json", "a_config.TestNew.2.json", "b_config.TestNew.1.json")
}

// TestCorpusReplayAfterEdits takes a finding of each kind from the corpus,
// in a copy of its package (a module of its own), and replays its schedule
// after an edit that moves every line and adds an unused function (the
// same finding, one line lower) and after one that starts and joins a
// goroutine at the top of the test (a divergence at the first block, exit
// status 2). Each step is a process of its own; the cases run in parallel.
func TestCorpusReplayAfterEdits(t *testing.T) {
	root := repoRoot(t)
	bin := buildCommand(t)
	for _, c := range []struct {
		dir, test string
		flags     []string
	}{
		{"corpus/thesis/deadlockwait", "TestDeadlockWait", nil},
		{"corpus/thesis/deadlock", "TestDeadlock", nil},
		{"corpus/races", "TestDoubleCheckedInit", nil},
		{"corpus/timing", "TestContextLeak", nil},
		{"corpus/litmus", "TestSBAssumingSC", []string{"-memory", "tso", "-race", "off"}},
	} {
		t.Run(c.test, func(t *testing.T) {
			t.Parallel()
			pkg := filepath.Base(c.dir)
			orig := map[string]string{"go.mod": "module example.com/copy\n\ngo 1.26\n"}
			sources, _ := filepath.Glob(filepath.Join(root, c.dir, "*.go"))
			for _, f := range sources {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				orig[pkg+"/"+filepath.Base(f)] = string(b)
			}
			dir := testkit.WriteModule(t, orig)
			out := t.TempDir()
			args := append(append([]string{"-o", out, "-run", "^" + c.test + "$"}, c.flags...), "./"+pkg)
			if status, stdout, stderr := runCommand(t, bin, dir, args...); status != exitFindings {
				t.Fatalf("recording: status %d\n%s\n%s", status, stdout, stderr)
			}
			file := filepath.Join(out, pkg+"."+c.test+".1.json")
			s, err := replay.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			edit := func(f func(name, src string) string) {
				t.Helper()
				for name, src := range orig {
					if strings.HasSuffix(name, ".go") {
						if err := os.WriteFile(filepath.Join(dir, name), []byte(f(name, src)), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}

			edit(func(name, src string) string {
				unused := "unusedAfterTheEdit_" + strings.NewReplacer("/", "_", ".", "_").Replace(name)
				return "// An edit that moves every line.\n" + src + "\nfunc " + unused + "() {}\n"
			})
			status, stdout, stderr := runCommand(t, bin, t.TempDir(), "-json", "-replay", file)
			finding, rep := replayEvents(t, stdout)
			f, line, _ := strings.Cut(s.Finding.Pos, ":")
			n, _ := strconv.Atoi(line)
			want := fmt.Sprintf("%s:%d", f, n+1)
			if status != exitFindings || finding == nil || rep == nil || !rep.Reproduced || finding.Kind != s.Finding.Kind || finding.Pos != want {
				t.Errorf("after an unrelated edit: status %d, finding %+v, replay %+v; want the %s at %s\n%s", status, finding, rep, s.Finding.Kind, want, stderr)
			}

			head := regexp.MustCompile(`(?m)^func ` + c.test + `\(t \*testing\.T\)\s*\{`)
			edited := 0
			edit(func(name, src string) string {
				if loc := head.FindStringIndex(src); loc != nil && strings.HasSuffix(name, "_test.go") {
					edited++
					return src[:loc[1]] + " { c := make(chan int); go func() { c <- 1 }(); <-c };" + src[loc[1]:]
				}
				return src
			})
			if edited != 1 {
				t.Fatalf("the test's function found in %d files", edited)
			}
			status, stdout, _ = runCommand(t, bin, t.TempDir(), "-replay", file)
			if status != exitError || !strings.Contains(stdout, "xbtest: replay diverged") || !strings.Contains(stdout, "  block 0: T0 ") || !strings.Contains(stdout, "--- DIVERGED: "+c.test) {
				t.Errorf("after an edit of the schedule: status %d\n%s", status, stdout)
			}
		})
	}
}

// runCommand runs the xbtest binary bin in dir and returns its exit status
// and output.
func runCommand(t *testing.T, bin, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}
