// Package timeline renders the timeline of a followed schedule as HTML: one
// lane per goroutine, one row per scheduling point, so that a finding can be
// read off the page rather than out of the text report. It shows each
// goroutine's operations with the source line, its blocks, the locks it holds
// (bars from acquisition to release), its waits (from parking to the wake-up,
// with an arrow from the goroutine that woke it), the preemptions, the two
// accesses of a race, the store buffers under -memory tso|pso, and at the end
// each goroutine's final state with an arrow to the goroutine holding the lock
// it wants. The page is self-contained (no script, no network) and prints.
//
// The data is result.ReplayOutcome, which the scheduler fills in when it
// follows a schedule with tracing on (xbtest -replay, and the verification of
// each finding under xbtest -html).
package timeline

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/xbtest/xbtest/result"
)

// Input is one followed schedule and what it is of.
type Input struct {
	Test, Package string
	Memory        string // sc, tso, pso
	Algorithm     string
	// The finding the schedule is of.
	Kind              result.Kind
	Message, Pos, Src string
	Decisions         []result.Block
	Outcome           *result.ReplayOutcome
	// Goroutines of the finding the schedule led to, for what the final
	// states do not say (a race's accesses, a panic's stack).
	Goroutines []result.Goroutine
}

// MaxRows bounds the rows drawn: a timeline longer than that shows its
// first and last rows.
const MaxRows = 600

// Page writes in's timeline as a complete HTML document.
func Page(w io.Writer, in Input) error {
	frag, err := Fragment(in)
	if err != nil {
		return err
	}
	return pageTmpl.Execute(w, struct {
		Title string
		Style template.CSS
		Body  template.HTML
	}{in.Test + " — " + string(in.Kind), Style, frag})
}

// Fragment renders in's timeline as an HTML fragment (a section) for a page
// that includes Style.
func Fragment(in Input) (template.HTML, error) {
	v := build(in)
	var b bytes.Buffer
	if err := fragTmpl.Execute(&b, v); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// view is what the template draws.
type view struct {
	In        Input
	Lanes     []lane
	Rows      []row
	Notes     []string // what the page could not show
	Diverged  string
	NotRepro  bool
	Steps     int
	Preempts  int
	Blocks    int
	Buffering bool
}

type lane struct {
	ID     string
	Buffer bool   // a store buffer's lane
	Final  string // the final state, for the header
	Class  string
}

// row is one line of the table: a step, the finding, an arrow, the end.
type row struct {
	Kind   string // "step", "time", "finding", "arrow", "end", "gap"
	N      int    // step number, 1-based
	Block  string
	Start  bool // a new block starts here
	Text   string
	Cells  []cell
	Class  string
	Colors []string
}

type cell struct {
	Class  string
	Op     string
	Pos    string
	Src    string
	Note   string
	Badges []badge
	Before []badge // what happened before the cell's step (a race's access)
	Locks  []lockBar
	Buffer []string
	// Stores that left the buffer since the owner's previous step.
	Committed []string
	CommitHow string
	Arrow     string // "from-r", "from-l", "through", "to-r", "to-l": the part of an arrow the cell holds
	Text      string
	Waiting   string
}

type badge struct{ Class, Text, Title string }

type lockBar struct {
	Name  string
	Color string
	Label string // "takes" at the first row, "releases" at the last
	Empty bool   // a free slot, to keep the bars of the lane aligned
}

// colors of the lock bars, one per lock (colour-blind safe, printable).
var colors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

func build(in Input) view {
	out := in.Outcome
	if out == nil {
		out = &result.ReplayOutcome{FindingStep: -1}
	}
	v := view{In: in, Diverged: out.Diverged, NotRepro: !out.Reproduced && out.Diverged == "", Steps: len(out.Steps),
		Preempts: result.Preemptions(in.Decisions), Blocks: len(in.Decisions), Buffering: in.Memory == "tso" || in.Memory == "pso"}

	// Lanes: every goroutine the schedule, the steps, the end state or the
	// finding names, in creation order, each store buffer beside its owner.
	var ids []string
	add := func(g string) {
		if g != "" && !slices.Contains(ids, g) {
			ids = append(ids, g)
		}
	}
	for _, st := range out.Steps {
		add(st.G)
		if len(st.Buffered) > 0 && v.Buffering {
			add(strings.TrimSuffix(st.G, " store buffer") + " store buffer")
		}
	}
	for _, d := range in.Decisions {
		add(d.Goroutine)
	}
	for _, g := range out.Final {
		add(g.ID)
	}
	for _, g := range in.Goroutines {
		add(g.ID)
	}
	slices.SortFunc(ids, compareIDs)
	final := map[string]result.Goroutine{}
	for _, g := range out.Final {
		final[g.ID] = g
	}
	t0Exited := final["T0"].State == "exited"
	for _, id := range ids {
		l := lane{ID: id, Buffer: strings.HasSuffix(id, " store buffer")}
		if g, ok := final[id]; ok {
			l.Final, l.Class = describeFinal(g, in.Kind, t0Exited)
		}
		v.Lanes = append(v.Lanes, l)
	}
	col := map[string]int{}
	for i, l := range v.Lanes {
		col[l.ID] = i
	}
	n := len(out.Steps)

	// Rows 0..n-1 are the steps; row n, after the last step, holds what
	// happened after it (a lock taken, a race's access).
	cells := make([][]cell, n+1)
	for i := range cells {
		cells[i] = make([]cell, len(v.Lanes))
	}
	used := make([]bool, n+1) // rows n: used when something is there

	// The last step of each block: where a preemption happens.
	lastOfBlock := map[int]int{}
	for i, st := range out.Steps {
		if st.G != "" {
			lastOfBlock[st.Block] = i
		}
	}
	for i, st := range out.Steps {
		c, ok := col[st.G]
		if !ok {
			continue
		}
		x := &cells[i][c]
		x.Op, x.Pos, x.Src, x.Note = st.Op, st.Pos, st.Src, st.Note
		x.Class = "on"
		if v.Lanes[c].Buffer {
			x.Class = "on commit" // a flush: Pos and Src are the store it commits
		}
		if lastOfBlock[st.Block] == i && st.Block < len(in.Decisions) && in.Decisions[st.Block].Preempt {
			next := ""
			if st.Block+1 < len(in.Decisions) {
				next = " " + in.Decisions[st.Block+1].Goroutine + " runs next"
			}
			x.Badges = append(x.Badges, badge{"preempt", "preempted", "the goroutine could have gone on;" + next})
		}
	}

	// Store buffers: the owner's buffer as of its last step (or its
	// flusher's), drawn in the buffer's lane while it is not empty, and
	// the stores that left it since the owner's previous step: committed
	// by a flush, or drained by a fence (a synchronization operation).
	if v.Buffering {
		cur := map[string][]string{}
		shown := make([][]string, len(v.Lanes)) // what each buffer lane last listed
		for i := 0; i <= n; i++ {
			if i < n {
				st := out.Steps[i]
				owner := strings.TrimSuffix(st.G, " store buffer")
				if c, ok := col[owner+" store buffer"]; ok && st.G != "" {
					if gone := removed(cur[owner], st.Buffered); len(gone) > 0 {
						x := &cells[i][c]
						x.Committed = gone
						x.CommitHow = "drained by a fence of " + owner + " before this step:"
						if st.G != owner {
							x.CommitHow = "commits to memory:"
						}
					}
				}
				if st.G != "" {
					cur[owner] = st.Buffered
				}
			}
			for c, l := range v.Lanes {
				if !l.Buffer {
					continue
				}
				owner := strings.TrimSuffix(l.ID, " store buffer")
				b := cur[owner]
				if len(b) == 0 {
					shown[c] = nil
					continue
				}
				x := &cells[i][c]
				if slices.Equal(b, shown[c]) {
					x.Waiting = fmt.Sprintf("%d store(s) still buffered", len(b))
				} else {
					x.Buffer, shown[c] = b, b
				}
				if x.Class == "" {
					x.Class = "buffered"
				}
			}
		}
	}

	// Locks: a bar per lock in a slot of the holder's lane.
	slots := map[string][]int{} // per lane: the span in each slot (-1 free)
	type placed struct {
		span result.LockSpan
		slot int
		col  string
	}
	var bars []placed
	lockColor := map[string]string{}
	for _, s := range out.Locks {
		if _, ok := lockColor[s.Lock]; !ok {
			lockColor[s.Lock] = colors[len(lockColor)%len(colors)]
		}
	}
	end := func(s result.LockSpan) int {
		if s.To < 0 || s.To > n {
			return n
		}
		return s.To
	}
	for i, s := range out.Locks {
		if _, ok := col[s.G]; !ok {
			continue
		}
		sl := slots[s.G]
		k := -1
		for j, o := range sl {
			if o < 0 || end(out.Locks[o]) < s.From {
				k = j
				break
			}
		}
		if k < 0 {
			k = len(sl)
			sl = append(sl, -1)
		}
		sl[k] = i
		slots[s.G] = sl
		bars = append(bars, placed{s, k, lockColor[s.Lock]})
	}
	for _, p := range bars {
		c := col[p.span.G]
		last := end(p.span)
		for i := min(p.span.From, n); i <= last; i++ {
			x := &cells[i][c]
			for len(x.Locks) <= p.slot {
				x.Locks = append(x.Locks, lockBar{Empty: true})
			}
			lb := lockBar{Name: p.span.Lock, Color: p.col}
			mode := ""
			if p.span.Read {
				mode = " (read)"
			}
			switch {
			case i == p.span.From && i == p.span.To:
				lb.Label = "takes and releases " + p.span.Lock + mode
			case i == p.span.From:
				lb.Label = "takes " + p.span.Lock + mode
			case i == p.span.To:
				lb.Label = "releases " + p.span.Lock
			}
			x.Locks[p.slot] = lb
			used[i] = true
		}
	}

	// Waits: shaded from the parking step to the wake-up; an arrow row
	// after the step that woke it.
	wakes := map[int][]result.WaitSpan{}
	for _, w := range out.Waits {
		c, ok := col[w.G]
		if !ok {
			continue
		}
		last := n
		if w.To >= 0 {
			last = min(w.To, n)
			if _, ok := col[w.By]; ok && w.To < n {
				wakes[w.To] = append(wakes[w.To], w)
			}
		}
		for i := w.From + 1; i < last || (w.To < 0 && i == n); i++ {
			x := &cells[i][c]
			if x.Class == "" {
				x.Class = "waiting"
			}
			if i == w.From+1 {
				x.Waiting = "waiting on " + w.On
			}
		}
	}

	// Races: the two accesses.
	for _, m := range out.Marks {
		c, ok := col[m.G]
		if !ok {
			continue
		}
		i := min(max(m.Step, 0), n)
		x := &cells[i][c]
		text := m.Op + " at " + m.Pos
		if m.Src != "" {
			text += ": " + m.Src
		}
		x.Before = append(x.Before, badge{"race", text, "an access of the race, made before this row's step"})
		if x.Class == "" || x.Class == "waiting" {
			x.Class = "racecell"
		}
		used[i] = true
	}

	// The rows, with the finding between the steps where it happened.
	findingAt := -1
	if out.Reproduced {
		findingAt = out.FindingStep
		if findingAt < 0 || findingAt > n {
			findingAt = n
		}
		if in.Kind == result.Race && findingAt < n {
			// A race is found at its second access, drawn in the row of
			// the step after it: the finding follows that row.
			findingAt++
		}
	}
	findingRow := row{Kind: "finding", Text: findingText(in)}
	prevBlock := -1
	var rows []row
	for i := 0; i <= n; i++ {
		if i == findingAt {
			rows = append(rows, findingRow)
		}
		if i == n {
			if used[n] {
				r := row{Kind: "step", Cells: cells[n], Start: true, Block: "after"}
				if k := len(in.Decisions) - 1; k >= 0 && in.Decisions[k].Mid {
					r.Block = strconv.Itoa(k) // the finding's block, which ends mid-way
				}
				rows = append(rows, r)
			}
			break
		}
		st := out.Steps[i]
		if st.G == "" {
			rows = append(rows, row{Kind: "time", N: i + 1, Text: st.Op})
			continue
		}
		r := row{Kind: "step", N: i + 1, Cells: cells[i], Block: strconv.Itoa(st.Block)}
		if st.Block >= len(in.Decisions) {
			r.Block = "after"
		}
		r.Start = st.Block != prevBlock
		prevBlock = st.Block
		rows = append(rows, r)
		for _, w := range wakes[i] {
			rows = append(rows, arrowRow(v.Lanes, col[w.By], col[w.G], fmt.Sprintf("%s wakes %s (%s)", w.By, w.G, w.On), "wake"))
		}
	}

	// The end: every goroutine's final state, then who waits for whom.
	if len(out.Final) > 0 {
		endRow := row{Kind: "end", Cells: make([]cell, len(v.Lanes))}
		for c, l := range v.Lanes {
			endRow.Cells[c] = cell{Class: "final " + l.Class, Text: l.Final}
		}
		rows = append(rows, endRow)
		for _, g := range out.Final {
			for _, h := range g.WaitsFor {
				if _, ok := col[h]; ok {
					rows = append(rows, arrowRow(v.Lanes, col[g.ID], col[h], fmt.Sprintf("%s waits for %s, which holds %s", g.ID, h, strings.TrimPrefix(g.Note, "wants ")), "holder"))
				}
			}
		}
		// A lock cycle found before it closed: the holders that would
		// block on a lock another goroutine of the cycle holds.
		for _, g := range in.Goroutines {
			_, l, ok := strings.Cut(g.Note, "would block on ")
			if !ok {
				continue
			}
			l, _, _ = strings.Cut(l, " if ")
			for _, h := range out.Final {
				if h.ID != g.ID && slices.Contains(h.Holds, l) {
					if _, ok := col[g.ID]; ok {
						rows = append(rows, arrowRow(v.Lanes, col[g.ID], col[h.ID], fmt.Sprintf("%s would wait for %s, which holds %s: the cycle", g.ID, h.ID, l), "holder cycle"))
					}
				}
			}
		}
	}
	if len(rows) > MaxRows {
		k := MaxRows / 2
		gap := row{Kind: "gap", Text: fmt.Sprintf("%d rows left out", len(rows)-2*k)}
		rows = append(append(rows[:k:k], gap), rows[len(rows)-k:]...)
		v.Notes = append(v.Notes, fmt.Sprintf("the timeline has %d rows; the first and last %d are shown", len(rows), k))
	}
	v.Rows = rows
	return v
}

// removed returns the entries of before that after no longer has (a
// multiset difference: PSO commits out of order).
func removed(before, after []string) []string {
	left := map[string]int{}
	for _, s := range after {
		left[s]++
	}
	var gone []string
	for _, s := range before {
		if left[s] > 0 {
			left[s]--
			continue
		}
		gone = append(gone, s)
	}
	return gone
}

// arrowRow is a row with an arrow from lane a to lane b and a label.
func arrowRow(lanes []lane, a, b int, label, class string) row {
	r := row{Kind: "arrow", Text: label, Class: class, Cells: make([]cell, len(lanes))}
	lo, hi := min(a, b), max(a, b)
	for c := range lanes {
		switch {
		case c == a && a < b:
			r.Cells[c].Arrow = "from-r"
		case c == a && a > b:
			r.Cells[c].Arrow = "from-l"
		case c == b && a < b:
			r.Cells[c].Arrow = "to-r"
		case c == b && a > b:
			r.Cells[c].Arrow = "to-l"
		case c > lo && c < hi:
			r.Cells[c].Arrow = "through"
		}
		if c == a {
			r.Cells[c].Text = label
		}
	}
	return r
}

// describeFinal says how a goroutine ended, and a class for its colour.
func describeFinal(g result.Goroutine, kind result.Kind, t0Exited bool) (string, string) {
	s := g.State
	on := ""
	if g.On != "" {
		on = " on " + g.On
	}
	switch g.State {
	case "exited":
		return "exited", "exited"
	case "blocked":
		s = "blocked" + on
	case "waiting":
		s = "waiting" + on
	case "running", "runnable":
		s = g.State
	}
	if g.Note != "" {
		s += ", " + g.Note
	}
	if len(g.WaitsFor) > 0 {
		s += " held by " + strings.Join(g.WaitsFor, ", ")
	}
	if len(g.Holds) > 0 {
		s += "; holds " + strings.Join(g.Holds, ", ")
	}
	if g.Pos != "" {
		s += " at " + g.Pos
	}
	class := "alive"
	if g.State == "blocked" || g.State == "waiting" {
		class = "stuck"
		if t0Exited && g.ID != "T0" && (kind == result.Leak || kind == "") {
			s = "leaked: " + s
			class = "leaked"
		}
	}
	return s, class
}

func findingText(in Input) string {
	s := string(in.Kind)
	if len(in.Goroutines) > 0 && in.Goroutines[0].State == "running" {
		s = in.Goroutines[0].ID + ": " + s // the goroutine it happened in
	}
	if in.Pos != "" {
		s += " at " + in.Pos
	}
	s += ": " + in.Message
	return s
}

// compareIDs orders goroutine names by creation (T0, T0.1, T0.2, T0.10),
// a store buffer right after its goroutine, the clock last.
func compareIDs(a, b string) int {
	key := func(s string) ([]int, int) {
		buf := 0
		if strings.HasSuffix(s, " store buffer") {
			s, buf = strings.TrimSuffix(s, " store buffer"), 1
		}
		if !strings.HasPrefix(s, "T") {
			return []int{1 << 30}, buf
		}
		var ns []int
		for _, p := range strings.Split(s[1:], ".") {
			k, err := strconv.Atoi(p)
			if err != nil {
				k = 1 << 29
			}
			ns = append(ns, k)
		}
		return ns, buf
	}
	ka, ba := key(a)
	kb, bb := key(b)
	if c := slices.Compare(ka, kb); c != 0 {
		return c
	}
	return ba - bb
}
