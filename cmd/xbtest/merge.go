package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// xbtest merge: the -json streams of the shards of one run (-shard i/n,
// each its own process, machine or pod) made into the report of the run
// one process would have made, printed as a run prints it. Every test must
// have been reported by every shard; a shard missing altogether, or for
// one test, is an error that names it.

const mergeUsage = `usage: xbtest merge [-json] [-v] FILE|DIR...

merge reads the -json output of the shards of one xbtest run (-shard i/n),
from files, or from every file of a directory (recursively) that holds such
output, and prints the run's report as one process would have printed it:
schedules add up, findings are merged, and a test is complete only if every
shard explored its part completely. Findings name the schedule files the
shards wrote (their -o directories), looked for where the -json output
says and beside the file that holds it.

Flags:
`

// mergedTest is one test's parts: each shard's summary and findings.
type mergedTest struct {
	pkg, name string
	parts     []*result.Result
	files     map[string]xbtest.ScheduleFile // by findingKey, the first shard's
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	o := &options{s: settings.Default()}
	fs := pflag.NewFlagSet("xbtest merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.json, "json", false, "print one JSON object per line, as xbtest -json")
	fs.BoolVarP(&o.verbose, "v", "v", false, "a line for passing tests too, and their notes")
	fs.Usage = func() {
		fmt.Fprint(stderr, mergeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(normalize(args, longFlags(fs))); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "xbtest merge: %v\n", err)
		return exitError
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "xbtest merge: name the shards' -json output (files or directories)")
		return exitError
	}
	tests, pkgs, err := readShards(fs.Args())
	if err == nil {
		err = checkShards(tests)
	}
	if err != nil {
		fmt.Fprintf(stderr, "xbtest merge: %v\n", err)
		return exitError
	}
	rp := &reporter{out: stdout, errOut: stderr, o: o, cwd: cwd()}
	var total tally
	status := exitOK
	for _, pkg := range pkgs {
		p := &xbtest.Package{ImportPath: pkg.name, Elapsed: pkg.elapsed}
		pkgStatus := exitOK
		for _, mt := range tests {
			if mt.pkg != pkg.name {
				continue
			}
			res, err := result.MergeShards(mt.parts, result.Shard{})
			if err != nil {
				fmt.Fprintf(stderr, "xbtest merge: %s: %v\n", pkg.name, err)
				return exitError
			}
			t := &xbtest.Test{Name: mt.name, Result: res}
			for _, f := range res.Findings {
				t.Files = append(t.Files, mt.files[findingKey(f)])
			}
			p.Tests = append(p.Tests, t)
			pkgStatus = max(pkgStatus, rp.testDone(p, t))
			total.add(p, t)
		}
		if len(p.Tests) == 0 {
			rp.noTests(p)
			continue
		}
		rp.pkgDone(p, pkgStatus)
		status = max(status, pkgStatus)
	}
	rp.total(&total)
	return status
}

type mergedPkg struct {
	name    string
	elapsed time.Duration
}

// readShards reads every event of the files paths name, and of the files
// under the directories they name that hold xbtest -json output.
func readShards(paths []string) ([]*mergedTest, []mergedPkg, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && isEventStream(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no xbtest -json output in %s", strings.Join(paths, " "))
	}
	byTest := map[string]*mergedTest{}
	var tests []*mergedTest
	var pkgs []mergedPkg
	for _, file := range files {
		if err := readStream(file, byTest, &tests, &pkgs); err != nil {
			return nil, nil, err
		}
	}
	return tests, pkgs, nil
}

// isEventStream reports whether the file's first line is an xbtest -json
// event (a schedule file, in the same directories, is not).
func isEventStream(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	if !sc.Scan() {
		return false
	}
	_, err = result.DecodeEvent(sc.Bytes())
	return err == nil
}

func readStream(file string, byTest map[string]*mergedTest, tests *[]*mergedTest, pkgs *[]mergedPkg) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var pending []*result.FindingEvent
	line := 0
	for sc.Scan() {
		line++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		ev, err := result.DecodeEvent(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s:%d: not xbtest -json output: %v", file, line, err)
		}
		switch e := ev.(type) {
		case *result.FindingEvent:
			pending = append(pending, e)
		case *result.SummaryEvent:
			key := e.Package + "\x00" + e.Test
			mt := byTest[key]
			if mt == nil {
				mt = &mergedTest{pkg: e.Package, name: e.Test, files: map[string]xbtest.ScheduleFile{}}
				byTest[key] = mt
				*tests = append(*tests, mt)
			}
			r, err := summaryResult(e)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", file, line, err)
			}
			for _, fe := range pending {
				if fe.Package != e.Package || fe.Test != e.Test {
					continue
				}
				fnd, sf := eventFinding(fe, file)
				r.Findings = append(r.Findings, fnd)
				if _, ok := mt.files[findingKey(fnd)]; !ok || sf.Path != "" && mt.files[findingKey(fnd)].Path == "" {
					mt.files[findingKey(fnd)] = sf
				}
			}
			pending = nil
			mt.parts = append(mt.parts, r)
		case *result.PackageEvent:
			i := slices.IndexFunc(*pkgs, func(p mergedPkg) bool { return p.name == e.Package })
			d := time.Duration(e.ElapsedS * float64(time.Second))
			if i < 0 {
				*pkgs = append(*pkgs, mergedPkg{name: e.Package, elapsed: d})
			} else {
				(*pkgs)[i].elapsed = max((*pkgs)[i].elapsed, d)
			}
		}
	}
	return sc.Err()
}

// summaryResult is the result a summary event says.
func summaryResult(e *result.SummaryEvent) (*result.Result, error) {
	sem := settings.Default().Semantics
	if err := sem.Algorithm.UnmarshalText([]byte(e.Algorithm)); err != nil {
		return nil, err
	}
	if err := sem.Memory.UnmarshalText([]byte(e.Memory)); err != nil {
		return nil, err
	}
	r := &result.Result{Test: e.Test, Semantics: sem, Schedules: e.Schedules, Aborted: e.Aborted, Complete: e.Complete,
		Depth: e.Depth, Left: e.Left, Skipped: e.Skipped, Internal: e.Error, Warnings: e.Warnings, Notes: e.Notes,
		Elapsed: time.Duration(e.ElapsedS * float64(time.Second)), Backer: e.Checkpoint, ShardLearnt: e.ShardLearnt}
	if !e.Complete {
		r.Bound = e.Bound
	}
	if e.Shard != "" {
		sh, err := result.ParseShard(e.Shard)
		if err != nil {
			return nil, err
		}
		r.Shard = &sh
	}
	return r, nil
}

// eventFinding is the finding an event says, with its schedule file,
// looked for as the event names it and beside the stream.
func eventFinding(e *result.FindingEvent, stream string) (*result.Finding, xbtest.ScheduleFile) {
	f := &result.Finding{Kind: e.Kind, Message: e.Message, Pos: e.Pos, Goroutines: e.Goroutines, Schedule: e.Schedule,
		Count: e.Count, Unreproduced: e.Unreproduced, Key: e.Key}
	if e.Replay == "" {
		return f, xbtest.ScheduleFile{Missing: e.NoReplay}
	}
	for _, p := range []string{e.Replay, filepath.Join(filepath.Dir(stream), e.Replay)} {
		if s, err := replay.Read(p); err == nil {
			f.Blocks, f.Shortened = s.Decisions, s.Shortened
			abs, _ := filepath.Abs(p)
			return f, xbtest.ScheduleFile{Path: abs}
		}
	}
	return f, xbtest.ScheduleFile{Missing: "none found: " + e.Replay + " (copy the shards' -o directories beside their -json output)"}
}

// checkShards checks that every shard of the run is there: each names its
// shard i/n, and every i of n must report.
func checkShards(tests []*mergedTest) error {
	if len(tests) == 0 {
		return errors.New("no test summaries in the -json output given")
	}
	n := 0
	seen := map[int]bool{}
	for _, mt := range tests {
		for _, r := range mt.parts {
			c, i := 1, 0
			if r.Shard != nil {
				c, i = r.Shard.Count, r.Shard.Index
			}
			if n == 0 {
				n = c
			}
			if c != n {
				return fmt.Errorf("%s %s: shard %d/%d, but other output is of %d shards", mt.pkg, mt.name, i, c, n)
			}
			seen[i] = true
		}
	}
	var missing []string
	for i := range n {
		if !seen[i] {
			missing = append(missing, result.Shard{Index: i, Count: n}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: no -json output of it among the files", strings.Join(missing, ", "))
	}
	return nil
}

// findingKey tells findings apart as result.MergeShards does.
func findingKey(f *result.Finding) string {
	if f.Key != "" {
		return f.Key
	}
	return string(f.Kind) + "|" + f.Pos + "|" + f.Message
}
