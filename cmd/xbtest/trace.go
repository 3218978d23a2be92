package main

import (
	"html/template"
	"os"
	"slices"
	"strings"

	"github.com/xbtest/xbtest/replay"
	"github.com/xbtest/xbtest/result"
)

// The HTML timeline of a replayed schedule (-replay FILE -trace OUT.html):
// one self-contained page, no script, one lane (column) per goroutine, one
// row per scheduling point in order, a rule where a new block starts, and
// the finding (or the divergence) marked where it happened.

type traceRow struct {
	N          int
	Cells      []traceCell
	BlockStart bool
	Block      int
	Preempt    bool
	Clock      string // virtual time advancing (no goroutine's step)
	Width      int    // lanes, for Clock's cell
}

type traceCell struct {
	Op, Pos string
	On      bool
}

type tracePage struct {
	Test, Package, Kind, Message, Pos, Diverged string
	Reproduced                                  bool
	Lanes                                       []string
	Before                                      []traceRow // steps up to the finding
	After                                       []traceRow
}

func writeTrace(path string, s *replay.Schedule, r *result.Result) error {
	out := r.Replay
	pg := tracePage{Test: r.Test, Package: s.Package, Kind: string(s.Finding.Kind), Message: s.Finding.Message,
		Pos: s.Finding.Pos, Diverged: out.Diverged, Reproduced: out.Reproduced}
	lane := func(g string) {
		if g != "" && !slices.Contains(pg.Lanes, g) {
			pg.Lanes = append(pg.Lanes, g)
		}
	}
	for _, st := range out.Steps {
		lane(st.G)
	}
	for _, d := range s.Decisions {
		lane(d.Goroutine)
	}
	for _, f := range r.Findings {
		for _, g := range f.Goroutines {
			lane(g.ID) // a goroutine that never reached a scheduling point
		}
	}
	slices.SortStableFunc(pg.Lanes, func(a, b string) int { return strings.Compare(a, b) })
	if out.Reproduced && len(r.Findings) > 0 {
		pg.Message, pg.Pos = r.Findings[0].Message, r.Findings[0].Pos
	}
	prev := -1 // the block of the last goroutine's step
	for i, st := range out.Steps {
		row := traceRow{N: i + 1, Block: st.Block}
		if st.G == "" {
			row.Clock, row.Width = st.Op, len(pg.Lanes)
		} else {
			row.BlockStart, prev = st.Block != prev, st.Block
		}
		if st.Block < len(s.Decisions) {
			row.Preempt = s.Decisions[st.Block].Preempt
		}
		for _, g := range pg.Lanes {
			c := traceCell{}
			if g == st.G {
				c = traceCell{Op: st.Op, Pos: st.Pos, On: true}
			}
			row.Cells = append(row.Cells, c)
		}
		if out.FindingStep >= 0 && i >= out.FindingStep {
			pg.After = append(pg.After, row)
		} else {
			pg.Before = append(pg.Before, row)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := traceTmpl.Execute(f, pg); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var traceTmpl = template.Must(template.New("trace").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>xbtest trace: {{.Test}}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 1em; }
table { border-collapse: collapse; }
th, td { padding: 2px 8px; border-left: 1px solid #ddd; vertical-align: top; }
th.lane { position: sticky; top: 0; background: #f4f4f4; border-bottom: 2px solid #999; }
td.n, td.b { color: #888; text-align: right; font-size: 11px; }
td.on { background: #eef5ff; font-family: ui-monospace, monospace; }
td.on .pos { color: #555; font-size: 11px; }
tr.block-start td { border-top: 2px solid #99b; }
tr.clock td.time { color: #555; font-style: italic; text-align: center; background: #f4f4f4; }
tr.finding td, div.finding { background: #fdd; font-weight: bold; }
div.diverged { background: #ffe9b3; padding: 4px; }
</style></head><body>
<h1>{{.Test}}</h1>
<p>{{.Package}} &mdash; {{.Kind}}{{if .Pos}} at {{.Pos}}{{end}}: {{.Message}}</p>
{{if .Diverged}}<div class="diverged">Diverged: {{.Diverged}}</div>{{end}}
{{if and (not .Reproduced) (not .Diverged)}}<div class="diverged">The schedule did not lead to the finding.</div>{{end}}
<table>
<thead><tr><th>step</th><th>block</th>{{range .Lanes}}<th class="lane" data-g="{{.}}">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Before}}{{template "row" .}}{{end}}
{{if .Reproduced}}<tr class="finding"><td></td><td></td><td colspan="{{len .Lanes}}">{{.Kind}}{{if .Pos}} at {{.Pos}}{{end}}: {{.Message}}</td></tr>{{end}}
{{range .After}}{{template "row" .}}{{end}}
</tbody></table>
</body></html>
{{define "row"}}{{if .Clock}}<tr class="clock"><td class="n">{{.N}}</td><td></td><td class="time" colspan="{{.Width}}">{{.Clock}}</td></tr>
{{else}}<tr class="step{{if .BlockStart}} block-start{{end}}"><td class="n">{{.N}}</td><td class="b">{{if .BlockStart}}{{.Block}}{{if .Preempt}}&#x21af;{{end}}{{end}}</td>{{range .Cells}}{{if .On}}<td class="on">{{.Op}} <span class="pos">{{.Pos}}</span></td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}{{end}}`))
