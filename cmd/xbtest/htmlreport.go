package main

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/internal/timeline"
	"github.com/xbtest/xbtest/result"
)

// The run report (-html FILE): one self-contained page for the whole run.
// Per package and test: the schedules, complete or which bound stopped it,
// the time, the figures that say what "complete" covers (the deepest path,
// the branches left, the algorithm, the memory model, the granularity);
// the findings by kind, each with the timeline of the replay that verified
// it; on the corpus, the comparison with its manifest.

type runReport struct {
	o        *options
	started  time.Time
	pkgs     []*reportPkg
	byPkg    map[string]*reportPkg
	findings map[result.Kind][]*reportFinding
	n        int
}

type reportPkg struct {
	Path, Verdict, Error string
	Elapsed              string
	Tests                []*reportTest
}

type reportTest struct {
	Package, Name, Verdict string
	Schedules, Aborted     int
	Coverage               string // complete, or the bound
	Complete               bool
	Depth, Left            int
	Elapsed                string
	Findings               []*reportFinding
	Problem                string
}

type reportFinding struct {
	ID            string
	Kind          result.Kind
	Package, Test string
	Message, Pos  string
	Count         int
	Schedule      string // the schedule file
	Size          string
	Unreproduced  string
	Timeline      template.HTML
	NoTimeline    string
}

func newRunReport(o *options) *runReport {
	return &runReport{o: o, started: time.Now(), byPkg: map[string]*reportPkg{}, findings: map[result.Kind][]*reportFinding{}}
}

func (rr *runReport) pkgOf(path string) *reportPkg {
	p := rr.byPkg[path]
	if p == nil {
		p = &reportPkg{Path: path}
		rr.byPkg[path] = p
		rr.pkgs = append(rr.pkgs, p)
	}
	return p
}

// test records a test as it is reported (nil rr: no report asked for).
func (rr *runReport) test(p *xbtest.Package, t *xbtest.Test) {
	if rr == nil {
		return
	}
	rp := rr.pkgOf(p.ImportPath)
	rt := &reportTest{Package: p.ImportPath, Name: t.Name, Problem: t.Problem}
	r := t.Result
	if r == nil {
		rt.Verdict, rt.Coverage = "FAIL", "incomplete: "+t.Problem
	} else {
		rt.Schedules, rt.Aborted, rt.Depth, rt.Left, rt.Complete = r.Schedules, r.Aborted, r.Depth, r.Left, r.Complete || r.Skipped
		rt.Elapsed = fmt.Sprintf("%.2fs", r.Elapsed.Seconds())
		rt.Verdict = "PASS"
		switch {
		case r.Skipped:
			rt.Verdict = "SKIP"
		case len(r.Findings) > 0:
			rt.Verdict = "FAIL"
		case r.Internal != "":
			rt.Verdict = "ERROR"
		}
		rt.Coverage = "complete"
		if !rt.Complete {
			rp := &reporter{o: rr.o}
			rt.Coverage = rp.boundText(r.BoundOf())
		}
		if r.Internal != "" {
			rt.Problem = firstLine(r.Internal)
		}
	}
	for i, f := range t.Findings() {
		rr.n++
		rf := &reportFinding{ID: fmt.Sprintf("f%d", rr.n), Kind: f.Kind, Package: p.ImportPath, Test: t.Name,
			Message: f.Message, Pos: f.Pos, Count: f.Count, Unreproduced: f.Unreproduced}
		if len(f.Blocks) > 0 {
			rf.Size = scheduleSize(f)
		}
		if i < len(t.Files) && t.Files[i].Err == nil {
			rf.Schedule = t.Files[i].Path
			if rel, err := filepath.Rel(cwd(), rf.Schedule); err == nil && !strings.HasPrefix(rel, "..") {
				rf.Schedule = rel
			}
		}
		switch {
		case f.Timeline != nil:
			in := timeline.Input{Test: t.Name, Package: p.ImportPath, Kind: f.Kind, Message: f.Message, Pos: f.Pos, Src: f.Src,
				Decisions: f.Blocks, Outcome: f.Timeline, Goroutines: f.Goroutines}
			if r != nil {
				in.Memory, in.Algorithm = r.Semantics.Memory.String(), r.Semantics.Algorithm.String()
			}
			frag, err := timeline.Fragment(in)
			if err != nil {
				rf.NoTimeline = err.Error()
			}
			rf.Timeline = frag
		case r == nil:
			rf.NoTimeline = "no timeline: the test binary ended before the finding was replayed"
		case f.Unreproduced != "":
			rf.NoTimeline = "no timeline: its schedule did not lead to it again"
		default:
			rf.NoTimeline = "no timeline: its schedule was not followed in the test binary (the test changes package-level state)"
		}
		rt.Findings = append(rt.Findings, rf)
		rr.findings[f.Kind] = append(rr.findings[f.Kind], rf)
	}
	rp.Tests = append(rp.Tests, rt)
}

// pkg records the end of a package.
func (rr *runReport) pkg(p *xbtest.Package) {
	if rr == nil {
		return
	}
	rp := rr.pkgOf(p.ImportPath)
	rp.Elapsed = fmt.Sprintf("%.2fs", p.Elapsed.Seconds())
	switch {
	case p.NoTests:
		rp.Verdict = "no test files"
	case p.BuildError != "":
		rp.Verdict, rp.Error = "build failed", p.BuildError
	case p.Err != nil:
		rp.Verdict, rp.Error = "error", p.Err.Error()
	case p.Interrupted:
		rp.Verdict = "interrupted"
	default:
		rp.Verdict = "ok"
		for _, t := range rp.Tests {
			if t.Verdict == "FAIL" || t.Verdict == "ERROR" {
				rp.Verdict = "FAIL"
			}
		}
	}
}

type reportKind struct {
	Kind     result.Kind
	Findings []*reportFinding
	Open     bool
}

// write writes the page.
func (rr *runReport) write(ta *tally) error {
	s := rr.o.s
	v := struct {
		Style                   template.CSS
		Command, Started, Total string
		Settings                []string
		Corpus                  string
		Mismatches              []string
		Packages                []*reportPkg
		Kinds                   []reportKind
		Elapsed                 string
	}{Style: timeline.Style + reportStyle, Command: "xbtest " + strings.Join(os.Args[1:], " "), Started: rr.started.UTC().Format("2006-01-02 15:04:05 UTC"),
		Total: ta.line(), Packages: rr.pkgs, Elapsed: time.Since(rr.started).Round(time.Second).String()}
	v.Settings = []string{
		"algorithm " + s.Algorithm.String(), fmt.Sprintf("sync-deps %v", s.SyncDeps), "memory model " + s.Memory.String(),
		"granularity " + s.Granularity.String(), "race detection " + s.Race.String(), "timers " + s.Timers.String(),
		fmt.Sprintf("fair-blocks %d", s.FairBlocks), fmt.Sprintf("max-steps %d", s.MaxSteps),
		"no preemption bound: every order of the atomic blocks the algorithm does not prove equivalent is explored",
	}
	if s.MaxSchedules > 0 {
		v.Settings = append(v.Settings, fmt.Sprintf("max-schedules %d", s.MaxSchedules))
	}
	if s.Timeout > 0 {
		v.Settings = append(v.Settings, "timeout "+s.Timeout.String())
	}
	if ta.corpus {
		v.Corpus, v.Mismatches = ta.corpusVerdicts(rr.o)
	}
	total := 0
	for _, k := range result.Kinds {
		total += len(rr.findings[k])
	}
	for _, k := range result.Kinds {
		if fs := rr.findings[k]; len(fs) > 0 {
			v.Kinds = append(v.Kinds, reportKind{k, fs, total <= 20})
		}
	}
	f, err := os.Create(rr.o.html)
	if err != nil {
		return err
	}
	if err := reportTmpl.Execute(f, v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const reportStyle template.CSS = `
table.runs { border-collapse: collapse; margin: .5em 0 1em; }
table.runs th, table.runs td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
table.runs th { background: #f4f4f4; position: sticky; top: 0; }
table.runs td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.pkg td { background: #eef; font-weight: 600; border-top: 2px solid #99b; }
.v-PASS, .v-ok { color: #1a7f1a; font-weight: 600; }
.v-FAIL, .v-ERROR, .v-build { color: #c00; font-weight: 600; }
.v-SKIP { color: #777; }
.incomplete { color: #a15c00; font-weight: 600; }
.corpus { background: #e6f5e6; padding: 4px 8px; display: inline-block; }
.corpus.wrong { background: #fdd; }
details.finding { border: 1px solid #ccc; border-radius: 4px; margin: .6em 0; padding: .3em .6em; }
details.finding > summary { cursor: pointer; font-weight: 600; }
.kindlinks a { margin-right: .4em; }
pre.err { background: #fdd; padding: 4px; white-space: pre-wrap; }
details.finding h1 { font-size: 1.05em; }
`

var reportTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>xbtest run report</title>
<style>{{.Style}}</style></head><body>
<h1>xbtest run report</h1>
<p><code>{{.Command}}</code> &mdash; started {{.Started}}, {{.Elapsed}}</p>
<p class="total"><b>{{.Total}}</b></p>
{{if .Corpus}}<p class="corpus{{if .Mismatches}} wrong{{end}}">{{.Corpus}}</p>{{range .Mismatches}}<p class="corpus wrong">differs from the manifest: {{.}}</p>{{end}}{{end}}
<p>Settings: {{range $i, $s := .Settings}}{{if $i}}; {{end}}{{$s}}{{end}}.</p>
<p>A test explored <i>completely</i> has had every schedule of its atomic blocks explored that the algorithm does not prove equivalent to one explored, up to the deepest path shown (in blocks); an incomplete one says which bound stopped it and how many branches were left, each at least one more schedule.</p>
<h2>Tests</h2>
<table class="runs">
<thead><tr><th>test</th><th>verdict</th><th>schedules</th><th>aborted</th><th>exploration</th><th>deepest path (blocks)</th><th>branches left</th><th>time</th><th>findings</th></tr></thead>
<tbody>
{{range .Packages}}<tr class="pkg" id="pkg-{{.Path}}"><td>{{.Path}}</td><td class="v-{{.Verdict}}">{{.Verdict}}</td><td colspan="5"></td><td class="num">{{.Elapsed}}</td><td></td></tr>
{{if .Error}}<tr><td colspan="9"><pre class="err">{{.Error}}</pre></td></tr>{{end}}
{{range .Tests}}<tr class="test"><td>{{.Name}}{{if .Problem}}<br><small>{{.Problem}}</small>{{end}}</td><td class="v-{{.Verdict}}">{{.Verdict}}</td><td class="num">{{.Schedules}}</td><td class="num">{{.Aborted}}</td><td{{if not .Complete}} class="incomplete"{{end}}>{{.Coverage}}</td><td class="num">{{.Depth}}</td><td class="num">{{if .Left}}{{.Left}}{{end}}</td><td class="num">{{.Elapsed}}</td><td class="kindlinks">{{range .Findings}}<a href="#{{.ID}}">{{.Kind}}</a>{{end}}</td></tr>
{{end}}{{end}}</tbody></table>
{{range .Kinds}}<h2>{{.Kind}} ({{len .Findings}})</h2>
{{$open := .Open}}{{range .Findings}}<details class="finding" id="{{.ID}}"{{if $open}} open{{end}}><summary>{{.Package}} {{.Test}}: {{.Message}}{{if .Pos}} at {{.Pos}}{{end}}</summary>
<p>Seen on {{.Count}} execution(s).{{if .Size}} Schedule: {{.Size}}.{{end}}{{if .Schedule}} Replay: <code>xbtest -replay {{.Schedule}} -trace timeline.html</code>{{end}}{{if .Unreproduced}} <b>NOT REPRODUCED</b>: {{.Unreproduced}}{{end}}</p>
{{if .Timeline}}{{.Timeline}}{{else}}<p><i>{{.NoTimeline}}</i></p>{{end}}
</details>
{{end}}{{end}}
</body></html>
`))
