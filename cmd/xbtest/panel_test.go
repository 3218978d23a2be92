//go:build panel

// The real-world panel: xbtest over pinned versions of real libraries' own
// test suites, beside go test -race on the same packages. It measures; it
// does not judge. A finding is a real bug of the library or a false alarm
// of xbtest only when testdata/panel/panel.json says so (its verdicts);
// every other finding is unjudged and the table says so first. The test
// fails only when the panel cannot be run (the module download, the build
// of xbtest); findings, time-outs and crashes are its results.
//
//	go test -tags panel -run 'TestPanel$' -timeout 0 -v ./cmd/xbtest
//
// Settings (a flag after -args, or the environment variable):
//
//	-panel.pkgs re       XBTEST_PANEL_PKGS        packages to run (regexp on the import path; all)
//	-panel.race-count n  XBTEST_PANEL_RACE_COUNT  go test -race -count=n for every package (panel.json,
//	                                              where a module may have its own; 0: no race runs)
//	-panel.timeout d     XBTEST_PANEL_TIMEOUT     xbtest -timeout, per test (panel.json)
//	-panel.limit d       XBTEST_PANEL_LIMIT       wall-clock limit of xbtest per package (panel.json)
//	-panel.race-limit d  XBTEST_PANEL_RACE_LIMIT  go test -race's -timeout per package (panel.json)
//	-panel.out file      XBTEST_PANEL_OUT         the markdown table (panel.md in the panel's directory)
//	-panel.args "a b"    XBTEST_PANEL_ARGS        more xbtest flags, split at spaces
//	-panel.from dir      XBTEST_PANEL_FROM        run nothing: read the outputs a run left in dir
//	                                              again and judge them by today's verdicts
//
// Everything lands in one directory (printed, kept): the module, each
// package's xbtest stdout and stderr, its go test -race output, schedule
// files, results.json and panel.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xbtest/xbtest/result"
)

var (
	panelPkgs      = flag.String("panel.pkgs", os.Getenv("XBTEST_PANEL_PKGS"), "panel: packages to run (regexp on the import path)")
	panelRaceCount = flag.String("panel.race-count", os.Getenv("XBTEST_PANEL_RACE_COUNT"), "panel: go test -race -count (0: no race runs)")
	panelTimeout   = flag.String("panel.timeout", os.Getenv("XBTEST_PANEL_TIMEOUT"), "panel: xbtest -timeout per test")
	panelLimit     = flag.String("panel.limit", os.Getenv("XBTEST_PANEL_LIMIT"), "panel: wall-clock limit of xbtest per package")
	panelRaceLimit = flag.String("panel.race-limit", os.Getenv("XBTEST_PANEL_RACE_LIMIT"), "panel: go test -race -timeout per package")
	panelOut       = flag.String("panel.out", os.Getenv("XBTEST_PANEL_OUT"), "panel: where the markdown table goes")
	panelArgs      = flag.String("panel.args", os.Getenv("XBTEST_PANEL_ARGS"), "panel: more xbtest flags")
	panelFrom      = flag.String("panel.from", os.Getenv("XBTEST_PANEL_FROM"), "panel: the directory of a run to read again instead of running")
)

// panelConfig is testdata/panel/panel.json.
type panelConfig struct {
	RaceCount    int            `json:"race_count"`
	TestTimeout  string         `json:"test_timeout"`
	PackageLimit string         `json:"package_limit"`
	RaceLimit    string         `json:"race_limit"`
	Modules      []panelModule  `json:"modules"`
	Verdicts     []panelVerdict `json:"verdicts"`
}

type panelModule struct {
	Path     string   `json:"path"`
	Version  string   `json:"version"`
	Packages []string `json:"packages"`
	// RaceCount, when set, is this module's go test -race -count (a suite
	// that takes long, or passes only once); RaceNote says why.
	RaceCount *int   `json:"race_count,omitempty"`
	RaceNote  string `json:"race_note,omitempty"`
}

// panelVerdict judges the findings of one package, test and kind whose
// message contains Message: Verdict is "real" (a bug of the library) or
// "false" (a false alarm of xbtest); Note says why.
type panelVerdict struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Verdict string `json:"verdict"`
	Note    string `json:"note"`
}

// panelSettings are the settings of one run, from panel.json and the
// flags.
type panelSettings struct {
	Pkgs        string        `json:"pkgs,omitempty"`
	RaceCount   int           `json:"race_count"`
	RaceForced  bool          `json:"race_count_forced,omitempty"` // by the flag, over the modules' own
	TestTimeout string        `json:"test_timeout"`
	Limit       time.Duration `json:"-"`
	LimitS      float64       `json:"package_limit_s"`
	RaceLimit   time.Duration `json:"-"`
	RaceLimitS  float64       `json:"race_limit_s"`
	Args        []string      `json:"xbtest_args,omitempty"`
}

// xbFinding and xbSummary are the parts of xbtest's JSON lines the panel
// reads (README.md, "-json"); fields it does not know are ignored.
type xbFinding struct {
	result.FindingEvent
	// Filled in by the panel.
	Verdict string `json:"verdict"`
	Note    string `json:"note,omitempty"`
}

type xbSummary struct {
	result.SummaryEvent
	// Filled in by the panel: an internal error stderr gives for the
	// test; Unexplored when stderr says the test was not explored.
	Unexplored bool `json:"unexplored,omitempty"`
}

// notExplored is a listed test without a summary, and why.
type notExplored struct {
	Test string `json:"test"`
	Why  string `json:"why"`
}

// procResult is how a tool's process ended.
type procResult struct {
	Status  int     `json:"status"` // exit status; -1 when killed or not started
	Seconds float64 `json:"seconds"`
	Killed  bool    `json:"killed,omitempty"`
	Err     string  `json:"error,omitempty"` // could not start, or what killed it
}

type raceResult struct {
	procResult
	Count  int      `json:"count"`
	Failed []string `json:"failed,omitempty"` // --- FAIL lines' tests
	Races  int      `json:"races"`            // WARNING: DATA RACE reports
	// Once is the run with -count=1, made when the run with Count > 1
	// failed.
	Once *raceResult `json:"count1,omitempty"`
	// Timeout is go test's -timeout when it ended the run.
	Timeout string `json:"timeout,omitempty"`
}

type pkgResult struct {
	Package     string        `json:"package"`
	Module      string        `json:"module"`
	Version     string        `json:"version"`
	Tests       []string      `json:"tests"`
	ListErr     string        `json:"list_error,omitempty"`
	Xbtest      procResult    `json:"xbtest"`
	Summaries   []xbSummary   `json:"summaries"`
	Findings    []xbFinding   `json:"findings"`
	NotExplored []notExplored `json:"not_explored"`
	Notes       []string      `json:"notes,omitempty"` // what else stderr or stdout said
	Race        *raceResult   `json:"race,omitempty"`
	RaceNote    string        `json:"race_note,omitempty"` // the module's, for its own -count
	Skipped     string        `json:"skipped,omitempty"`   // why the package was not run at all
}

func TestPanel(t *testing.T) {
	// The settings' variables were read when the flags were made, before
	// go test records what a test reads: read them again here, so that a
	// run with other settings is not answered from go test's cache (a
	// second run with another XBTEST_PANEL_ARGS printed the first's result).
	for _, v := range []string{"XBTEST_PANEL_PKGS", "XBTEST_PANEL_RACE_COUNT", "XBTEST_PANEL_TIMEOUT", "XBTEST_PANEL_LIMIT", "XBTEST_PANEL_RACE_LIMIT", "XBTEST_PANEL_OUT", "XBTEST_PANEL_ARGS", "XBTEST_PANEL_FROM"} {
		os.Getenv(v)
	}
	cfg := readPanelConfig(t)
	if *panelFrom != "" {
		rereadPanel(t, cfg, *panelFrom)
		return
	}
	set := panelSettingsFrom(t, cfg)
	pkgRe, err := regexp.Compile(set.Pkgs)
	if err != nil {
		t.Fatalf("-panel.pkgs: %v", err)
	}

	dir, err := os.MkdirTemp("", "xbtest-panel-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("panel directory: %s", dir)
	start := time.Now()

	bin := filepath.Join(dir, "xbtest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building xbtest: %v\n%s", err, out)
	}
	version := xbtestVersion()

	var selected []panelModule
	for _, m := range cfg.Modules {
		var pkgs []string
		for _, p := range m.Packages {
			if pkgRe.MatchString(p) {
				pkgs = append(pkgs, p)
			}
		}
		if len(pkgs) > 0 {
			m.Packages = pkgs
			selected = append(selected, m)
		}
	}
	if len(selected) == 0 {
		t.Fatalf("no panel package matches %q", set.Pkgs)
	}
	mod := filepath.Join(dir, "mod")
	if err := makePanelModule(mod, selected); err != nil {
		t.Fatal(err)
	}

	var results []*pkgResult
	for _, m := range selected {
		for i, p := range m.Packages {
			r := &pkgResult{Package: p, Module: m.Path, Version: m.Version}
			results = append(results, r)
			if budget(t, time.Hour) < 10*time.Second {
				r.Skipped = "not run: go test's -timeout is near (run with -timeout 0)"
				continue
			}
			raceCount := set.RaceCount
			if m.RaceCount != nil && !set.RaceForced {
				raceCount = *m.RaceCount
				if i == 0 {
					r.RaceNote = m.RaceNote // once per module
				}
			}
			runPanelPackage(t, bin, mod, dir, r, set, raceCount)
			applyVerdicts(r, cfg.Verdicts)
			t.Logf("%s: %s", p, oneLine(r))
		}
	}

	hdr := panelHeader{
		Date:     time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Xbtest:   version,
		Go:       runtime.Version(),
		Platform: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU()),
		Settings: set,
		Modules:  selected,
		Elapsed:  time.Since(start),
	}
	writePanel(t, dir, panelRun{hdr, results}, cfg.Verdicts)
}

// panelRun is results.json.
type panelRun struct {
	Header  panelHeader  `json:"header"`
	Results []*pkgResult `json:"results"`
}

// writePanel writes results.json and the table, and logs the table.
func writePanel(t *testing.T, dir string, run panelRun, verdicts []panelVerdict) {
	md := panelMarkdown(run.Header, run.Results, verdicts)
	out := filepath.Join(dir, "panel.md")
	if *panelOut != "" {
		out, _ = filepath.Abs(*panelOut)
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		t.Errorf("writing the table: %v", err)
	}
	js, _ := json.MarshalIndent(run, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "results.json"), js, 0o644); err != nil {
		t.Errorf("writing results.json: %v", err)
	}
	t.Logf("\n%s", md)
	t.Logf("table: %s", out)
	t.Logf("results: %s", filepath.Join(dir, "results.json"))
}

// rereadPanel reads the xbtest output a run left in dir again (with this
// harness's reading of it) and judges its findings by cfg's verdicts: a
// verdict added after a run counts without running again.
func rereadPanel(t *testing.T, cfg *panelConfig, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run panelRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	for _, r := range run.Results {
		if r.Skipped != "" {
			continue
		}
		stem := sanitize(r.Package)
		stdout, err := os.ReadFile(filepath.Join(dir, stem+".xbtest.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := os.ReadFile(filepath.Join(dir, stem+".xbtest.stderr"))
		if err != nil {
			t.Fatal(err)
		}
		r.Summaries, r.Findings, r.NotExplored, r.Notes = nil, nil, nil, nil
		parseXbtest(r, stdout, stderr)
		applyVerdicts(r, cfg.Verdicts)
	}
	writePanel(t, dir, run, cfg.Verdicts)
}

func readPanelConfig(t *testing.T) *panelConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "panel", "panel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg panelConfig
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("panel.json: %v", err)
	}
	for _, v := range cfg.Verdicts {
		if v.Verdict != "real" && v.Verdict != "false" {
			t.Fatalf("panel.json: verdict %q for %s %s %s: want real or false", v.Verdict, v.Package, v.Test, v.Kind)
		}
	}
	return &cfg
}

func panelSettingsFrom(t *testing.T, cfg *panelConfig) panelSettings {
	t.Helper()
	set := panelSettings{Pkgs: *panelPkgs, RaceCount: cfg.RaceCount, TestTimeout: cfg.TestTimeout}
	if *panelRaceCount != "" {
		n, err := strconv.Atoi(*panelRaceCount)
		if err != nil || n < 0 {
			t.Fatalf("-panel.race-count %q: want a count", *panelRaceCount)
		}
		set.RaceCount, set.RaceForced = n, true
	}
	if *panelTimeout != "" {
		set.TestTimeout = *panelTimeout
	}
	if _, err := time.ParseDuration(set.TestTimeout); err != nil {
		t.Fatalf("per-test timeout: %v", err)
	}
	limit := cfg.PackageLimit
	if *panelLimit != "" {
		limit = *panelLimit
	}
	d, err := time.ParseDuration(limit)
	if err != nil || d <= 0 {
		t.Fatalf("per-package limit %q: want a duration", limit)
	}
	set.Limit, set.LimitS = d, d.Seconds()
	limit = cfg.RaceLimit
	if *panelRaceLimit != "" {
		limit = *panelRaceLimit
	}
	if limit == "" {
		limit = "600s"
	}
	if d, err = time.ParseDuration(limit); err != nil || d <= 0 {
		t.Fatalf("go test -race limit %q: want a duration", limit)
	}
	set.RaceLimit, set.RaceLimitS = d, d.Seconds()
	set.Args = strings.Fields(*panelArgs)
	return set
}

// xbtestVersion is the commit xbtest was built from (dirty when the work
// tree has changes).
func xbtestVersion() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// makePanelModule creates the module that requires the panel's modules at
// their pinned versions with what their tests need, and checks that the
// go command kept the pins.
func makePanelModule(mod string, mods []panelModule) error {
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	gomod := "module xbtest.panel/run\n\ngo 1.26.0\n"
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	// go get -t, each package at its module's version: a package without
	// a version would be upgraded to the latest.
	args := []string{"get", "-t"}
	for _, m := range mods {
		for _, p := range m.Packages {
			args = append(args, p+"@"+m.Version)
		}
	}
	if out, err := panelGo(mod, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, m := range mods {
		out, err := panelGo(mod, "list", "-m", "-f", "{{.Version}}", m.Path).Output()
		if err != nil {
			return fmt.Errorf("go list -m %s: %v", m.Path, err)
		}
		if v := strings.TrimSpace(string(out)); v != m.Version {
			return fmt.Errorf("%s: the module resolved to %s, not the pinned %s (another module requires a newer one)", m.Path, v, m.Version)
		}
	}
	return nil
}

func panelGo(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd
}

// runPanelPackage runs one package: go test -list, xbtest, go test -race.
// budget is d, or less when go test's -timeout would end the test before
// d has passed, with time to spare for writing the table.
func budget(t *testing.T, d time.Duration) time.Duration {
	if dl, ok := t.Deadline(); ok {
		return max(0, min(d, time.Until(dl)-90*time.Second))
	}
	return d
}

func runPanelPackage(t *testing.T, bin, mod, dir string, r *pkgResult, set panelSettings, raceCount int) {
	stem := sanitize(r.Package)
	list, err := panelGo(mod, "test", "-list", ".", r.Package).CombinedOutput()
	if err != nil {
		r.ListErr = firstLines(string(list), 5)
	}
	for _, l := range strings.Split(string(list), "\n") {
		if isTestName(l) {
			r.Tests = append(r.Tests, l)
		}
	}

	args := []string{"-json", "-timeout", set.TestTimeout, "-o", filepath.Join(dir, "out", stem)}
	args = append(args, set.Args...)
	args = append(args, r.Package)
	stdoutPath := filepath.Join(dir, stem+".xbtest.jsonl")
	stderrPath := filepath.Join(dir, stem+".xbtest.stderr")
	cmd := exec.Command(bin, args...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off")
	limit := set.Limit
	if raceCount > 0 {
		// Leave go test -race some of what go test's -timeout leaves.
		limit = min(limit, budget(t, time.Hour)/2)
	}
	t.Logf("%s: xbtest", r.Package)
	limit = budget(t, limit)
	r.Xbtest = runLimited(cmd, stdoutPath, stderrPath, limit)
	if r.Xbtest.Killed {
		if limit < set.Limit {
			r.Xbtest.Err += " (the per-package limit, shortened to end before go test's -timeout)"
		} else {
			r.Xbtest.Err += " (per-package limit)"
		}
	}
	stdout, _ := os.ReadFile(stdoutPath)
	stderr, _ := os.ReadFile(stderrPath)
	parseXbtest(r, stdout, stderr)

	if raceCount > 0 {
		r.Race = runRace(t, mod, r.Package, filepath.Join(dir, stem+".race.txt"), raceCount, set.RaceLimit)
		if r.Race.Status != 0 && raceCount > 1 && budget(t, time.Hour) > 10*time.Second {
			// Some suites pass once only (package state a later run
			// finds changed): say whether this one does.
			r.Race.Once = runRace(t, mod, r.Package, filepath.Join(dir, stem+".race1.txt"), 1, set.RaceLimit)
		}
	}
}

// runRace runs go test -race -count=count on pkg, output to out.
func runRace(t *testing.T, mod, pkg, out string, count int, limit time.Duration) *raceResult {
	t.Logf("%s: go test -race -count=%d", pkg, count)
	limit = budget(t, limit)
	cmd := panelGo(mod, "test", "-race", "-count="+strconv.Itoa(count), "-timeout="+limit.String(), pkg)
	rr := &raceResult{Count: count}
	// go test's -timeout ends the test binary with a stack dump; the
	// wall-clock limit past it is for go itself.
	rr.procResult = runLimited(cmd, out, out, limit+time.Minute)
	b, _ := os.ReadFile(out)
	parseRace(rr, string(b))
	return rr
}

func isTestName(s string) bool {
	if !strings.HasPrefix(s, "Test") || strings.ContainsAny(s, " \t/") {
		return false
	}
	// Test, or Test followed by a character that is not lower case, as go
	// test requires.
	rest := s[len("Test"):]
	return rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')
}

// runLimited runs cmd in a process group of its own with its output in
// files, for at most limit: then the group gets SIGTERM (xbtest ends its go
// test and cleans up), and SIGKILL 15 seconds later.
func runLimited(cmd *exec.Cmd, stdoutPath, stderrPath string, limit time.Duration) procResult {
	res := procResult{Status: -1}
	stdout, err := os.Create(stdoutPath)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer stdout.Close()
	stderr := stdout
	if stderrPath != stdoutPath {
		if stderr, err = os.Create(stderrPath); err != nil {
			res.Err = err.Error()
			return res
		}
		defer stderr.Close()
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Err = err.Error()
		return res
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		res.Killed = true
		res.Err = fmt.Sprintf("killed after %.0f s", time.Since(start).Seconds())
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			err = <-done
			res.Err += " (SIGKILL: SIGTERM did not end it)"
		}
	}
	// Nothing of the group outlives the run.
	syscall.Kill(-pgid, syscall.SIGKILL)
	res.Seconds = time.Since(start).Seconds()
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.Status = 0
	case errors.As(err, &ee):
		res.Status = ee.ExitCode() // -1 when a signal ended it
	default:
		res.Err = strings.TrimSpace(res.Err + " " + err.Error())
	}
	return res
}

var (
	reBinaryEnded = regexp.MustCompile(`^--- FAIL: (\S+) \(the test binary ended without an xbtest report\)`)
	reTestError   = regexp.MustCompile(`^xbtest: (Test\S*): (.*)`)
	reBuildFailed = regexp.MustCompile(`^FAIL\t(\S+) \[build failed\]`)
	reRaceFail    = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	reProgress    = regexp.MustCompile(`^xbtest: \S+: \d+ schedules, .* so far$`)
)

// parseXbtest reads xbtest's JSON lines and stderr into r: summaries,
// findings, and for each listed test without a summary why, as far as
// stderr tells.
func parseXbtest(r *pkgResult, stdout, stderr []byte) {
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var other, unknown int
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev struct {
			Event string `json:"event"`
		}
		if json.Unmarshal(line, &ev) != nil {
			other++
			continue
		}
		switch ev.Event {
		case "finding":
			var f xbFinding
			json.Unmarshal(line, &f)
			r.Findings = append(r.Findings, f)
		case "summary":
			var s xbSummary
			json.Unmarshal(line, &s)
			r.Summaries = append(r.Summaries, s)
		case "package", "total":
			// The package's result and the run's totals: the panel
			// counts from the summaries itself.
		default:
			unknown++
		}
	}
	if other > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d line(s) of stdout are not JSON", other))
	}
	if unknown > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d JSON line(s) of an event the panel does not know", unknown))
	}

	// What stderr says, per test and for the package.
	why := map[string]string{}
	var pkgWhy []string
	lines := strings.Split(string(stderr), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if reProgress.MatchString(l) {
			continue
		}
		if m := reBinaryEnded.FindStringSubmatch(l); m != nil {
			// go test's output of the test follows, up to the next
			// report.
			var detail []string
			for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], "--- ") && !strings.HasPrefix(lines[j], "xbtest: ") && !strings.HasPrefix(lines[j], "FAIL\t"); j++ {
				if s := strings.TrimSpace(lines[j]); s != "" && !strings.HasPrefix(s, "=== RUN") {
					detail = append(detail, s)
				}
			}
			w := "the test binary ended without an xbtest report"
			if len(detail) > 0 {
				w += ": " + strings.Join(detail[:min(len(detail), 2)], " / ")
			}
			why[m[1]] = w
			continue
		}
		if m := reTestError.FindStringSubmatch(l); m != nil {
			if strings.HasPrefix(m[2], "warning: ") {
				continue
			}
			msg := m[2]
			// An internal error may go on over several lines.
			for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "\t") && j < i+3; j++ {
				msg += " " + strings.TrimSpace(lines[j])
			}
			why[m[1]] = "xbtest: " + msg
			continue
		}
		if m := reBuildFailed.FindStringSubmatch(l); m != nil {
			msg := firstLines(strings.Join(lines[:i], "\n"), 3)
			pkgWhy = append(pkgWhy, "build failed: "+msg)
			continue
		}
		if strings.HasPrefix(l, "xbtest: ") {
			pkgWhy = append(pkgWhy, strings.TrimSpace(l))
		}
	}

	explored := map[string]bool{}
	nsum := map[string]int{}
	for i := range r.Summaries {
		s := &r.Summaries[i]
		nsum[s.Test]++
		if w, ok := why[s.Test]; ok && strings.HasPrefix(w, "xbtest: ") {
			msg := strings.TrimPrefix(w, "xbtest: ")
			if rest, ok := strings.CutPrefix(msg, "not explored, "); ok && !s.Complete && s.Schedules == 0 {
				// A summary of nothing: the test counts as not
				// explored, for the reason stderr gives.
				s.Unexplored = true
				why[s.Test] = rest
				continue
			}
			s.Error = msg
			delete(why, s.Test)
		}
		explored[topTest(s.Test)] = true
	}
	pkgReason := strings.Join(uniq(pkgWhy), "; ")
	if r.Xbtest.Killed {
		pkgReason = r.Xbtest.Err
	}
	for _, name := range r.Tests {
		if explored[name] {
			continue
		}
		w := why[name]
		delete(why, name)
		switch {
		case w != "":
		case r.ListErr != "" && len(r.Tests) == 0:
			w = "go test -list failed"
		case pkgReason != "":
			w = pkgReason
		case r.Xbtest.Status == 0 || r.Xbtest.Status == 1:
			w = "no summary, and stderr says nothing about the test"
		default:
			w = fmt.Sprintf("no summary; xbtest exited with status %d and stderr says nothing about the test", r.Xbtest.Status)
		}
		r.NotExplored = append(r.NotExplored, notExplored{Test: name, Why: w})
	}
	for _, name := range sortedKeys(nsum) {
		if nsum[name] > 1 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d summaries", name, nsum[name]))
		}
	}
	// Reasons for tests go test -list did not name (subtests, a test of
	// another package): keep them as notes.
	for _, name := range sortedKeys(why) {
		r.Notes = append(r.Notes, name+": "+why[name])
	}
	if len(r.Summaries) == 0 && pkgReason != "" && len(r.Tests) == 0 {
		r.Notes = append(r.Notes, pkgReason)
	}
}

func parseRace(rr *raceResult, out string) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if l == "running tests:" {
			// After a go test -timeout: the tests that were running.
			for _, r := range lines[i+1:] {
				if !strings.HasPrefix(r, "\t") {
					break
				}
				rr.Failed = append(rr.Failed, "running at the timeout: "+strings.TrimSpace(r))
			}
		}
		if m := reRaceFail.FindStringSubmatch(l); m != nil && !slices.Contains(rr.Failed, m[1]) {
			rr.Failed = append(rr.Failed, m[1])
		}
		if strings.Contains(l, "WARNING: DATA RACE") {
			rr.Races++
		}
		if d, ok := strings.CutPrefix(l, "panic: test timed out after "); ok {
			rr.Timeout = strings.TrimSpace(d)
		}
	}
}

// applyVerdicts judges r's findings by panel.json's verdicts.
func applyVerdicts(r *pkgResult, verdicts []panelVerdict) {
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Verdict = "unjudged"
		if v := verdictFor(f, r.Package, verdicts); v != nil {
			f.Verdict, f.Note = v.Verdict, v.Note
		}
	}
}

func verdictFor(f *xbFinding, pkg string, verdicts []panelVerdict) *panelVerdict {
	p := f.Package
	if p == "" {
		p = pkg
	}
	for i, v := range verdicts {
		if v.Package == p && v.Test == f.Test && v.Kind == string(f.Kind) && strings.Contains(f.Message, v.Message) {
			return &verdicts[i]
		}
	}
	return nil
}

func topTest(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, " / ")
}

func uniq(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// counts of one package's results, as the table shows them.
type pkgCounts struct {
	explored, complete, bounded int
	bounds                      map[string]int
	kinds                       map[string]int
	verdicts                    map[string]int
}

func countsOf(r *pkgResult) pkgCounts {
	c := pkgCounts{bounds: map[string]int{}, kinds: map[string]int{}, verdicts: map[string]int{}}
	// A test is complete when every summary of it is (a test may have
	// several: subtests, a test binary the test runs again).
	var order []string
	bound := map[string]*string{}
	for _, s := range r.Summaries {
		top := topTest(s.Test)
		if s.Unexplored {
			continue
		}
		if _, ok := bound[top]; !ok {
			order = append(order, top)
			bound[top] = nil
		}
		if s.Complete || bound[top] != nil {
			continue
		}
		b := s.Bound
		switch {
		case b != "":
		case s.Error != "":
			b = "error"
		default:
			b = "bound not stated"
		}
		bound[top] = &b
	}
	for _, top := range order {
		c.explored++
		if b := bound[top]; b != nil {
			c.bounded++
			c.bounds[*b]++
		} else {
			c.complete++
		}
	}
	for _, f := range r.Findings {
		c.kinds[string(f.Kind)]++
		c.verdicts[f.Verdict]++
	}
	return c
}

func oneLine(r *pkgResult) string {
	c := countsOf(r)
	s := fmt.Sprintf("%d tests, %d explored, %d complete, %d bounded, %d not explored, %d finding(s) (%d unjudged), xbtest exit %s in %.0fs",
		len(r.Tests), c.explored, c.complete, c.bounded, len(r.NotExplored), len(r.Findings), c.verdicts["unjudged"], statusText(r.Xbtest), r.Xbtest.Seconds)
	if r.Race != nil {
		s += ", go test -race " + raceText(r.Race)
	}
	return s
}

func statusText(p procResult) string {
	switch {
	case p.Killed:
		return p.Err
	case p.Status < 0:
		return "not run: " + p.Err
	}
	return strconv.Itoa(p.Status)
}

func raceText(rr *raceResult) string {
	verdict := "pass"
	if rr.Status != 0 {
		verdict = "FAIL"
	}
	if rr.Killed {
		verdict = "FAIL (" + rr.Err + ")"
	}
	s := fmt.Sprintf("-count=%d %s, %.0fs", rr.Count, verdict, rr.Seconds)
	if rr.Timeout != "" {
		s = fmt.Sprintf("-count=%d %s (timed out after %s), %.0fs", rr.Count, verdict, rr.Timeout, rr.Seconds)
	}
	if rr.Races > 0 {
		s += fmt.Sprintf(", %d race report(s)", rr.Races)
	}
	if rr.Once != nil {
		s += "; " + raceText(rr.Once)
	}
	return s
}

type panelHeader struct {
	Date     string        `json:"date"`
	Xbtest   string        `json:"xbtest"`
	Go       string        `json:"go"`
	Platform string        `json:"platform"`
	Settings panelSettings `json:"settings"`
	Modules  []panelModule `json:"modules"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// cell makes s fit a markdown table cell.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func countList(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// panelMarkdown is the report: settings, a row per package, the findings,
// and per package what did not run and why.
func panelMarkdown(h panelHeader, results []*pkgResult, verdicts []panelVerdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Panel run of %s\n\n", h.Date)
	which := "unless a module says otherwise"
	if h.Settings.RaceForced {
		which = "every package"
	}
	fmt.Fprintf(&b, "xbtest %s, %s, %s; xbtest -timeout %s per test, killed after %.0f s per package; go test -race -count=%d (%s), -timeout %.0fs",
		h.Xbtest, h.Go, h.Platform, h.Settings.TestTimeout, h.Settings.LimitS, h.Settings.RaceCount, which, h.Settings.RaceLimitS)
	if len(h.Settings.Args) > 0 {
		fmt.Fprintf(&b, "; xbtest flags %s", strings.Join(h.Settings.Args, " "))
	}
	if h.Settings.Pkgs != "" {
		fmt.Fprintf(&b, "; packages matching `%s`", h.Settings.Pkgs)
	}
	fmt.Fprintf(&b, "; whole run %.0f s.\n\n", h.Elapsed.Seconds())
	var mods []string
	for _, m := range h.Modules {
		mods = append(mods, m.Path+" "+m.Version)
	}
	fmt.Fprintf(&b, "Modules: %s.\n\n", strings.Join(mods, ", "))

	var tests, explored, complete, notExp, findings, unjudged, real, falses int
	for _, r := range results {
		c := countsOf(r)
		tests += len(r.Tests)
		explored += c.explored
		complete += c.complete
		notExp += len(r.NotExplored)
		findings += len(r.Findings)
		unjudged += c.verdicts["unjudged"]
		real += c.verdicts["real"]
		falses += c.verdicts["false"]
	}
	if unjudged > 0 {
		fmt.Fprintf(&b, "**%d UNJUDGED FINDING(S)**: each is a false alarm of xbtest or a real bug of the library, and nobody has said which (a verdict in cmd/xbtest/testdata/panel/panel.json); go test -race's column says whether the suite passes without xbtest.\n\n", unjudged)
	}
	fmt.Fprintf(&b, "Totals: %d tests, %d explored (%d complete), %d not explored; %d finding(s): %d unjudged, %d real, %d false.\n\n",
		tests, explored, complete, notExp, findings, unjudged, real, falses)

	b.WriteString("| package | tests | explored | complete | bounded | not explored | findings | unjudged | xbtest time | exit | go test -race |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %d | | | | | | | | %s | |\n", r.Package, len(r.Tests), cell(r.Skipped, 80))
			continue
		}
		c := countsOf(r)
		bounded := strconv.Itoa(c.bounded)
		if c.bounded > 0 {
			bounded += " (" + countList(c.bounds) + ")"
		}
		notExpCell := strconv.Itoa(len(r.NotExplored))
		if len(r.NotExplored) > 0 {
			reasons := map[string]int{}
			for _, n := range r.NotExplored {
				reasons[shortWhy(n.Why)]++
			}
			notExpCell += " (" + cell(countList(reasons), 240) + ")"
		}
		find := "0"
		if len(r.Findings) > 0 {
			find = fmt.Sprintf("%d: %s", len(r.Findings), countList(c.kinds))
			var judged []string
			for _, v := range []string{"real", "false"} {
				if c.verdicts[v] > 0 {
					judged = append(judged, fmt.Sprintf("%d %s", c.verdicts[v], v))
				}
			}
			if len(judged) > 0 {
				find += " (" + strings.Join(judged, ", ") + ")"
			}
		}
		unj := strconv.Itoa(c.verdicts["unjudged"])
		if c.verdicts["unjudged"] > 0 {
			unj = "**" + unj + "**"
		}
		race := "not run"
		if r.Race != nil {
			race = raceText(r.Race)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s | %s | %.1f s | %s | %s |\n",
			r.Package, len(r.Tests), c.explored, c.complete, bounded, notExpCell, find, unj,
			r.Xbtest.Seconds, cell(statusText(r.Xbtest), 60), race)
	}

	if findings > 0 {
		b.WriteString("\n#### Findings\n\n| package | test | kind | message | position | verdict |\n|---|---|---|---|---|---|\n")
		for _, r := range results {
			for _, f := range r.Findings {
				pos := f.Pos
				if pos == "" && len(f.Goroutines) > 0 {
					pos = f.Goroutines[0].Pos
				}
				v := f.Verdict
				if v == "unjudged" {
					v = "**unjudged**"
				}
				if f.Note != "" {
					v += ": " + f.Note
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Package, f.Test, f.Kind, cell(f.Message, 300), cell(pos, 100), cell(v, 200))
			}
		}
	}

	var notes strings.Builder
	for _, r := range results {
		var lines []string
		if r.ListErr != "" {
			lines = append(lines, "go test -list: "+r.ListErr)
		}
		timeout, _ := time.ParseDuration(h.Settings.TestTimeout)
		for _, s := range r.Summaries {
			if s.Error != "" {
				lines = append(lines, fmt.Sprintf("%s: explored %d schedules, then: %s", s.Test, s.Schedules, s.Error))
			}
			// A bound xbtest did not keep.
			if timeout > 0 && s.ElapsedS > 1.5*timeout.Seconds()+5 {
				lines = append(lines, fmt.Sprintf("%s: %d schedules in %.0f s, past xbtest's -timeout %s", s.Test, s.Schedules, s.ElapsedS, h.Settings.TestTimeout))
			}
		}
		// Not explored, grouped by reason in the order first seen.
		var whys []string
		byWhy := map[string][]string{}
		for _, n := range r.NotExplored {
			if byWhy[n.Why] == nil {
				whys = append(whys, n.Why)
			}
			byWhy[n.Why] = append(byWhy[n.Why], n.Test)
		}
		for _, w := range whys {
			tests := byWhy[w]
			names := strings.Join(tests, ", ")
			switch {
			case len(tests) == len(r.Tests) && len(tests) > 1:
				names = "all"
			case len(tests) > 8:
				names = fmt.Sprintf("%d tests: %s and %d more", len(tests), strings.Join(tests[:6], ", "), len(tests)-6)
			}
			lines = append(lines, fmt.Sprintf("not explored (%s): %s", names, w))
		}
		lines = append(lines, r.Notes...)
		if r.Race != nil && r.RaceNote != "" {
			lines = append(lines, fmt.Sprintf("go test -race -count=%d: %s", r.Race.Count, r.RaceNote))
		}
		for rr := r.Race; rr != nil; rr = rr.Once {
			if len(rr.Failed) > 0 {
				lines = append(lines, fmt.Sprintf("go test -race -count=%d failed: %s", rr.Count, strings.Join(rr.Failed, ", ")))
			}
		}
		if r.Race != nil && r.Race.Err != "" && !r.Race.Killed {
			lines = append(lines, "go test -race: "+r.Race.Err)
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&notes, "\n%s:\n", r.Package)
		for _, l := range lines {
			fmt.Fprintf(&notes, "- %s\n", cell(l, 600))
		}
	}
	if notes.Len() > 0 {
		b.WriteString("\n#### Not explored, errors and notes\n")
		b.WriteString(notes.String())
	}

	// Verdicts that judged nothing this run, among the packages it ran.
	ran := map[string]bool{}
	for _, r := range results {
		if r.Skipped == "" {
			ran[r.Package] = true
		}
	}
	var stale []string
	for _, v := range verdicts {
		if !ran[v.Package] {
			continue
		}
		used := false
		for _, r := range results {
			for i := range r.Findings {
				if verdictFor(&r.Findings[i], r.Package, []panelVerdict{v}) != nil {
					used = true
				}
			}
		}
		if !used {
			stale = append(stale, fmt.Sprintf("%s %s %s %q (%s)", v.Package, v.Test, v.Kind, v.Message, v.Verdict))
		}
	}
	if len(stale) > 0 {
		b.WriteString("\n#### Verdicts that matched no finding this run\n\n")
		for _, s := range stale {
			fmt.Fprintf(&b, "- %s\n", cell(s, 300))
		}
	}
	return b.String()
}

// shortWhy groups not-explored reasons for the table's cell: the reason up
// to its first colon.
func shortWhy(w string) string {
	w = strings.TrimPrefix(w, "xbtest: ")
	if i := strings.Index(w, ": "); i > 0 {
		w = w[:i]
	}
	return cell(w, 60)
}

// TestPanelParse checks the panel's reading of xbtest's output and its
// table on recorded output, without running anything.
func TestPanelParse(t *testing.T) {
	stdout := `{"event":"finding","package":"example.com/fix/p","test":"TestRace","kind":"race","schedule":1,"message":"data race on x: read by T0.2 and write by T0.1","pos":"p/p_test.go:14","goroutines":[{"id":"T0.2","state":"read","on":"","pos":"p/p_test.go:14"}],"replay":"/tmp/fixout/p.TestRace.1.json","blocks":3,"preemptions":0}
{"event":"summary","package":"example.com/fix/p","test":"TestRace","algorithm":"exitblock-rwdd","memory":"sc","schedules":8,"aborted":0,"findings":{"race":1},"complete":true,"elapsed_s":0.2,"checkpoint":"auto"}
{"event":"finding","package":"example.com/fix/p","test":"TestLeak","kind":"leak","schedule":2,"message":"goroutine T0.1 | blocked forever","goroutines":[{"id":"T0.1","state":"blocked","on":"chan","pos":"p/p.go:9"}],"replay":"x.json"}
{"event":"summary","package":"example.com/fix/p","test":"TestLeak","schedules":2,"findings":{"leak":1},"complete":true,"elapsed_s":0.1}
{"event":"summary","package":"example.com/fix/p","test":"TestLong","schedules":40952,"findings":{},"complete":false,"bound":"time","elapsed_s":3.0}
{"event":"summary","package":"example.com/fix/p","test":"TestOld","schedules":7,"findings":{},"complete":false,"elapsed_s":40.0}
{"event":"summary","package":"example.com/fix/p","test":"TestWatch","schedules":3,"findings":{},"complete":false,"elapsed_s":10.0}
{"event":"summary","package":"example.com/fix/p","test":"TestRace","schedules":0,"findings":{},"complete":false,"elapsed_s":1.0}
{"event":"progress","package":"example.com/fix/p"}
{"event":"package","package":"example.com/fix/p","result":"FAIL","elapsed_s":5}
{"event":"summary","package":"example.com/fix/p","test":"TestLater","schedules":0,"findings":{},"complete":false,"elapsed_s":0}
`
	stderr := `xbtest: TestLong: 16600 schedules, 16592/s, 0 finding(s) so far
xbtest: TestWatch: goroutine T0.1 did not reach a scheduling point within 10s: it is blocked or spinning in code xbtest does not control
	goroutine 7 [chan receive]:
xbtest: TestLater: not explored, an earlier test left a goroutine xbtest could not stop: it is blocked
--- FAIL: TestCrash (the test binary ended without an xbtest report)
=== RUN   TestCrash
panic: boom

goroutine 7 [running]:
`
	r := &pkgResult{Package: "example.com/fix/p", Tests: []string{"TestRace", "TestLeak", "TestLong", "TestOld", "TestWatch", "TestCrash", "TestSilent", "TestLater"}, Xbtest: procResult{Status: 1, Seconds: 20}}
	parseXbtest(r, []byte(stdout), []byte(stderr))
	applyVerdicts(r, []panelVerdict{
		{Package: "example.com/fix/p", Test: "TestRace", Kind: "race", Message: "data race on x", Verdict: "real", Note: "x++ unguarded"},
		{Package: "example.com/fix/p", Test: "TestRace", Kind: "leak", Verdict: "false"},
		{Package: "example.com/fix/p", Test: "TestGone", Kind: "race", Verdict: "false"},
	})
	if len(r.Summaries) != 7 || len(r.Findings) != 2 {
		t.Fatalf("%d summaries, %d findings", len(r.Summaries), len(r.Findings))
	}
	if r.Findings[0].Verdict != "real" || r.Findings[1].Verdict != "unjudged" {
		t.Errorf("verdicts %q %q", r.Findings[0].Verdict, r.Findings[1].Verdict)
	}
	want := []notExplored{
		{"TestCrash", "the test binary ended without an xbtest report: panic: boom / goroutine 7 [running]:"},
		{"TestSilent", "no summary, and stderr says nothing about the test"},
		{"TestLater", "an earlier test left a goroutine xbtest could not stop: it is blocked"},
	}
	if !slices.Equal(r.NotExplored, want) {
		t.Errorf("not explored %q\nwant %q", r.NotExplored, want)
	}
	c := countsOf(r)
	if c.explored != 5 || c.complete != 1 || c.bounded != 4 || c.bounds["time"] != 1 || c.bounds["error"] != 1 || c.bounds["bound not stated"] != 2 {
		t.Errorf("counts %+v", c)
	}
	if !strings.Contains(r.Summaries[4].Error, "blocked or spinning") || !slices.Contains(r.Notes, "1 JSON line(s) of an event the panel does not know") || !slices.Contains(r.Notes, "TestRace: 2 summaries") {
		t.Errorf("error %q, notes %q", r.Summaries[4].Error, r.Notes)
	}

	killed := &pkgResult{Package: "example.com/k", Tests: []string{"TestA"}, Xbtest: procResult{Status: -1, Killed: true, Err: "killed after 300 s (per-package limit)"}}
	parseXbtest(killed, nil, []byte("xbtest: interrupted\n"))
	if len(killed.NotExplored) != 1 || killed.NotExplored[0].Why != "killed after 300 s (per-package limit)" {
		t.Errorf("killed: %q", killed.NotExplored)
	}
	build := &pkgResult{Package: "golang.org/x/sync/errgroup", Tests: []string{"TestZero", "TestOne"}, Xbtest: procResult{Status: 2}}
	parseXbtest(build, nil, []byte("# golang.org/x/sync/errgroup\nmodule golang.org/x/sync provides package golang.org/x/sync/errgroup and is replaced but not required; to add it:\n\tgo get golang.org/x/sync\nFAIL\tgolang.org/x/sync/errgroup [build failed]\n"))
	if len(build.NotExplored) != 2 || !strings.HasPrefix(build.NotExplored[0].Why, "build failed: module golang.org/x/sync provides package") {
		t.Errorf("build failed: %q", build.NotExplored)
	}

	rr := &raceResult{Count: 3, procResult: procResult{Status: 1, Seconds: 61}}
	parseRace(rr, "panic: test timed out after 1m0s\n\trunning tests:\n\t\tTestX (1m0s)\n--- FAIL: TestY (0.00s)\nWARNING: DATA RACE\n")
	parseRace(rr, "panic: test timed out after 1m0s\nrunning tests:\n\tTestX (1m0s)\n\ngoroutine 1\n")
	if rr.Races != 1 || !slices.Contains(rr.Failed, "TestY") || !slices.Contains(rr.Failed, "running at the timeout: TestX (1m0s)") || rr.Timeout != "1m0s" {
		t.Errorf("race result %+v", rr)
	}

	md := panelMarkdown(panelHeader{Settings: panelSettings{TestTimeout: "20s", LimitS: 300, RaceCount: 3}}, []*pkgResult{r, killed, build}, []panelVerdict{
		{Package: "example.com/fix/p", Test: "TestGone", Kind: "race", Verdict: "false"},
	})
	for _, s := range []string{
		"**1 UNJUDGED FINDING(S)**",
		"| example.com/fix/p | 8 | 5 | 1 | 4 (2 bound not stated, 1 error, 1 time) | 3 (1 an earlier test left a goroutine xbtest could not stop, 1 no summary, and stderr says nothing about the test, 1 the test binary ended without an xbtest report) | 2: 1 leak, 1 race (1 real) | **1** | 20.0 s | 1 | not run |",
		"| example.com/fix/p | TestLeak | leak | goroutine T0.1 \\| blocked forever | p/p.go:9 | **unjudged** |",
		"| example.com/fix/p | TestRace | race | data race on x: read by T0.2 and write by T0.1 | p/p_test.go:14 | real: x++ unguarded |",
		"- not explored (TestA): killed after 300 s (per-package limit)",
		"- TestOld: 7 schedules in 40 s, past xbtest's -timeout 20s",
		"- not explored (all): build failed: module golang.org/x/sync provides package",
		"example.com/fix/p TestGone race \"\" (false)",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("the table lacks %q:\n%s", s, md)
		}
	}
}

// TestPanelKill checks that the per-package limit ends a process group.
func TestPanelKill(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	res := runLimited(exec.Command("sh", "-c", "sleep 60 & sleep 60; echo done"), out, out, time.Second)
	if !res.Killed || res.Seconds > 10 || !strings.HasPrefix(res.Err, "killed after 1 s") {
		t.Errorf("%+v", res)
	}
	res = runLimited(exec.Command("sh", "-c", "exit 3"), out, out, time.Minute)
	if res.Killed || res.Status != 3 {
		t.Errorf("%+v", res)
	}
}

var notPathChar = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// sanitize makes a package path a file name.
func sanitize(s string) string { return notPathChar.ReplaceAllString(s, "_") }
