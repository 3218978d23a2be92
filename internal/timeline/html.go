package timeline

import "html/template"

// Style is the page's CSS, also for pages that embed Fragments.
const Style template.CSS = `
body { font: 13px/1.35 system-ui, sans-serif; margin: 1em; color: #111; }
* { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
h1 { font-size: 1.4em; margin: .2em 0; }
h2 { font-size: 1.15em; margin: .8em 0 .3em; }
.tl-head p { margin: .2em 0; }
.tl-legend span { margin-right: 1.2em; white-space: nowrap; }
table.tl { border-collapse: collapse; margin-top: .5em; }
table.tl th, table.tl td { padding: 2px 6px; border-left: 1px solid #ddd; vertical-align: top; text-align: left; }
table.tl th.lane { position: sticky; top: 0; background: #f4f4f4; border-bottom: 2px solid #999; min-width: 12em; max-width: 28em; font-weight: 600; }
table.tl th.lane .fin { display: block; font-weight: normal; font-size: 11px; }
table.tl th.buf, table.tl td.bufcol { background: #fbf7ee; }
td.n, td.b { color: #888; text-align: right; font-size: 11px; white-space: nowrap; }
tr.block-start td { border-top: 2px solid #99b; }
td.on { background: #eef5ff; }
td.on.commit { background: #f6ead0; }
td.buffered { background: #fbf7ee; }
.op { font-family: ui-monospace, monospace; font-weight: 600; }
.pos { color: #555; font-size: 11px; }
.note { display: block; font-size: 11px; font-weight: 600; color: #234; }
.src { display: block; font-family: ui-monospace, monospace; font-size: 11px; color: #234; white-space: pre-wrap; }
td.waiting { background: repeating-linear-gradient(135deg, #fff, #fff 4px, #eee 4px, #eee 8px); }
td.waiting .wait, td .wait { color: #666; font-style: italic; font-size: 11px; }
td.racecell { background: #ffe3e3; }
.badge { display: inline-block; border-radius: 3px; padding: 0 4px; margin: 1px 2px 1px 0; font-size: 11px; }
.badge.preempt { background: #fff0b3; border: 1px solid #d9b400; }
.badge.race { background: #d62728; color: #fff; font-weight: 600; }
.badge.before { display: table; margin-bottom: 2px; }
.locks { float: left; display: flex; gap: 2px; margin: -2px 6px -2px -4px; min-height: 1.6em; align-self: stretch; }
.lock { width: 6px; border-radius: 1px; }
.lock.empty { background: transparent; }
.locklabel { display: block; font-size: 11px; }
.buffer { font-family: ui-monospace, monospace; font-size: 11px; }
.buffer ol, .committed ol { margin: 0; padding-left: 1.5em; }
.committed { font-family: ui-monospace, monospace; font-size: 11px; color: #7a4b00; font-weight: 600; }
tr.time td.time { color: #555; font-style: italic; text-align: center; background: #f4f4f4; }
tr.finding td { background: #fdd; font-weight: bold; border-top: 2px solid #c00; border-bottom: 2px solid #c00; }
tr.gap td { text-align: center; color: #666; background: #f4f4f4; }
tr.end td { border-top: 3px double #555; font-size: 12px; }
td.final.exited { color: #555; }
td.final.stuck { background: #ffe9b3; font-weight: 600; }
td.final.leaked { background: #ffd0a0; font-weight: 600; }
td.final.alive { background: #e6f5e6; }
tr.arrow td { font-size: 11px; height: 1.4em; }
tr.arrow.wake { --arrow: #2c7a2c; }
tr.arrow.holder { --arrow: #c00; }
td.from-r { background: linear-gradient(var(--arrow), var(--arrow)) right center / 50% 2px no-repeat; }
td.from-l { background: linear-gradient(var(--arrow), var(--arrow)) left center / 50% 2px no-repeat; }
td.through { background: linear-gradient(var(--arrow), var(--arrow)) center / 100% 2px no-repeat; }
td.to-r { background: linear-gradient(var(--arrow), var(--arrow)) left center / 50% 2px no-repeat; }
td.to-l { background: linear-gradient(var(--arrow), var(--arrow)) right center / 50% 2px no-repeat; }
td.to-r .head, td.to-l .head { color: var(--arrow); font-weight: bold; display: block; text-align: center; line-height: 1; }
td.from-r .lbl, td.from-l .lbl { background: #fff; color: var(--arrow); padding: 0 2px; }
div.diverged { background: #ffe9b3; padding: 4px; margin: .3em 0; }
@media print {
  body { margin: 0; font-size: 10px; }
  table.tl th.lane { position: static; }
  tr { break-inside: avoid; }
}
`

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>xbtest: {{.Title}}</title>
<style>{{.Style}}</style></head><body>
{{.Body}}
</body></html>
`))

var fragTmpl = template.Must(template.New("frag").Parse(`<section class="timeline" data-kind="{{.In.Kind}}">
<div class="tl-head">
<h1>{{.In.Test}}: {{.In.Kind}}</h1>
<p>{{.In.Package}}{{if .In.Memory}} &mdash; memory {{.In.Memory}}{{end}}{{if .In.Algorithm}}, {{.In.Algorithm}}{{end}} &mdash; {{.Blocks}} blocks, {{.Preempts}} preemptions, {{.Steps}} steps</p>
<p class="msg"><b>{{.In.Kind}}</b>{{if .In.Pos}} at {{.In.Pos}}{{end}}: {{.In.Message}}{{if .In.Src}} <span class="src">{{.In.Src}}</span>{{end}}</p>
{{if .Diverged}}<div class="diverged">Diverged: {{.Diverged}}</div>{{end}}
{{if .NotRepro}}<div class="diverged">The schedule did not lead to the finding.</div>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
<p class="tl-legend"><span>&#9646; bars: locks held (taken to released)</span><span class="badge preempt">preempted</span> a goroutine stopped where it could have gone on <span class="badge race">race</span> an access of a race <span>hatched: waiting</span><span style="color:#2c7a2c">&rarr; wakes</span><span style="color:#c00">&rarr; waits for the holder</span></p>
</div>
<table class="tl">
<thead><tr><th>step</th><th>block</th>{{range .Lanes}}<th class="lane{{if .Buffer}} buf{{end}}" data-g="{{.ID}}">{{if .Buffer}}{{.ID}}{{else}}{{.ID}}{{end}}{{if .Final}}<span class="fin">{{.Final}}</span>{{end}}</th>{{end}}</tr></thead>
<tbody>
{{$lanes := len .Lanes}}{{range .Rows}}{{if eq .Kind "step"}}<tr class="step{{if .Start}} block-start{{end}}"><td class="n">{{if .N}}{{.N}}{{end}}</td><td class="b">{{if .Start}}{{.Block}}{{end}}</td>{{range .Cells}}{{template "cell" .}}{{end}}</tr>
{{else if eq .Kind "time"}}<tr class="time"><td class="n">{{.N}}</td><td></td><td class="time" colspan="{{$lanes}}">{{.Text}}</td></tr>
{{else if eq .Kind "finding"}}<tr class="finding"><td></td><td></td><td colspan="{{$lanes}}">{{.Text}}</td></tr>
{{else if eq .Kind "gap"}}<tr class="gap"><td></td><td></td><td colspan="{{$lanes}}">&hellip; {{.Text}} &hellip;</td></tr>
{{else if eq .Kind "arrow"}}<tr class="arrow {{.Class}}" data-label="{{.Text}}"><td></td><td></td>{{range .Cells}}<td class="{{.Arrow}}">{{if eq .Arrow "to-r"}}<span class="head">&#9654;</span>{{else if eq .Arrow "to-l"}}<span class="head">&#9664;</span>{{else if .Text}}<span class="lbl">{{.Text}}</span>{{end}}</td>{{end}}</tr>
{{else if eq .Kind "end"}}<tr class="end"><td></td><td class="b">end</td>{{range .Cells}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}{{end}}</tbody></table>
</section>
{{define "cell"}}<td class="{{.Class}}{{if .Buffer}} bufcol{{end}}">{{if .Locks}}<span class="locks">{{range .Locks}}{{if .Empty}}<span class="lock empty"></span>{{else}}<span class="lock" style="background:{{.Color}}" title="{{.Name}}" data-lock="{{.Name}}"></span>{{end}}{{end}}</span>{{end}}{{range .Locks}}{{if .Label}}<span class="locklabel" style="color:{{.Color}}">{{.Label}}</span>{{end}}{{end}}{{range .Before}}<span class="badge before {{.Class}}" title="{{.Title}}">{{.Text}}</span>{{end}}{{if .Op}}<span class="op">{{.Op}}</span>{{if .Pos}} <span class="pos">{{.Pos}}</span>{{end}}{{if .Src}}<span class="src">{{.Src}}</span>{{end}}{{if .Note}}<span class="note">{{.Note}}</span>{{end}}{{end}}{{range .Badges}}<span class="badge {{.Class}}" title="{{.Title}}">{{.Text}}</span>{{end}}{{if .Waiting}}<span class="wait">{{.Waiting}}</span>{{end}}{{if .Committed}}<div class="committed">{{.CommitHow}}<ol>{{range .Committed}}<li>{{.}}</li>{{end}}</ol></div>{{end}}{{if .Buffer}}<div class="buffer">in the buffer:<ol>{{range .Buffer}}<li>{{.}}</li>{{end}}</ol></div>{{end}}</td>{{end}}`))
