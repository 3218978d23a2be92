package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/replay"
)

// replayJSON runs xbtest -replay FILE -json in dir and returns its status,
// its finding line (nil if none) and its replay line.
func replayJSON(t *testing.T, dir, file string, extra ...string) (int, map[string]any, map[string]any, string) {
	t.Helper()
	status, stdout, stderr := runIn(t, dir, append([]string{"-json", "-replay", file}, extra...)...)
	var finding, rep map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		switch ev["event"] {
		case "finding":
			finding = ev
		case "replay":
			rep = ev
		}
	}
	return status, finding, rep, stderr
}

// checkReplays replays every schedule file a corpus run wrote into dir (n
// findings), each in a fresh test process: the same kind at the same
// position, exit status 1.
func checkReplays(t *testing.T, dir string, n int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != n {
		t.Errorf("%d schedule files for %d findings", len(files), n)
	}
	for _, f := range files {
		t.Run("replay "+filepath.Base(f), func(t *testing.T) {
			s, err := replay.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			status, finding, rep, stderr := replayJSON(t, t.TempDir(), f)
			if status != exitFindings || finding == nil || rep == nil || rep["reproduced"] != true {
				t.Fatalf("status %d, finding %v, replay %v\n%s", status, finding, rep, stderr)
			}
			if finding["kind"] != s.Finding.Kind || finding["pos"] != s.Finding.Pos {
				t.Errorf("replayed %v at %v, recorded %s at %s", finding["kind"], finding["pos"], s.Finding.Kind, s.Finding.Pos)
			}
		})
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
	dir := writeModule(t, map[string]string{
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
	expect := func(what string, want int, wantOut ...string) {
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
	}
	expect("as recorded", exitFindings, "XBTEST: ASSERTION in TestTwoIncrements", "lost update: counter is 1", "at lu/lu_test.go:17")

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
	s := &replay.Schedule{Package: "example.com/p", Test: "TestX", Finding: replay.Finding{Kind: "deadlock"},
		Decisions: []replay.Decision{{Kind: replay.KindBlock, Goroutine: "T0", Points: 1}}}
	p, err := replay.Write(dir, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	os.WriteFile(good, b, 0o644)
	for name, c := range map[string]struct{ content, want string }{
		"corrupt":   {"{\"version\": 2, garbage", "corrupt or truncated"},
		"truncated": {string(b[:len(b)*2/3]), "corrupt or truncated"},
		"newer":     {strings.Replace(string(b), `"version": 2`, `"version": 3`, 1), "version 3 is newer than this xbtest's (2)"},
		"flush":     {strings.Replace(string(b), `"kind": "block"`, `"kind": "flush"`, 1), `kind "flush", which this xbtest cannot replay`},
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
	dir := writeModule(t, map[string]string{
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
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+html)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	for _, w := range []string{`data-g="T0"`, `data-g="T0.1"`, `class="finding"`, "lock-cycle"} {
		if !strings.Contains(string(dom), w) {
			t.Errorf("rendered DOM lacks %s", w)
		}
	}
}
