// Package edit rewrites Go source as text rather than printing a modified
// syntax tree: the original text (comments, directives such as //go:embed
// and //go:build, formatting) survives untouched outside the edits, and
// line numbers stay exact through /*line*/ directives that Render emits
// wherever an edit moved text to another line, so that compiler errors,
// panics and stack traces name the original file and line.
//
// An Editor collects the edits of one file: Replace and ReplaceRange
// replace a node's or a range's text by a list of Parts, Insert adds text.
// A Part is generated text (Lit) or a range of the original (Editor.Src,
// Editor.SrcRange), which is rendered with the edits inside it. So edits
// nest: `ch <- <-in` becomes `xb.Send(ch, xb.Recv(in))` from two
// independent edits, one of the receive and one of the send that refers
// to the receive's text. Render orders the edits by containment and
// writes the file once; the rewriter (package instrument) makes the edits.
package edit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"sort"
)

// Part is one piece of a replacement: generated text, or a range of the
// original source rendered with the edits it contains.
type Part struct {
	text  string
	s, e  int
	isSrc bool
}

// Lit is generated text.
func Lit(s string) Part { return Part{text: s} }

// edit replaces src[start:end] (an insertion when start == end).
type edit struct {
	start, end int
	parts      []Part
	seq        int
	children   []*edit
}

// Editor collects the edits of one file.
type Editor struct {
	tf    *token.File
	src   []byte
	edits []*edit
}

// New returns an Editor of the file tf whose text is src.
func New(tf *token.File, src []byte) *Editor { return &Editor{tf: tf, src: src} }

// Off is the offset of p in the file.
func (ed *Editor) Off(p token.Pos) int { return ed.tf.Offset(p) }

// Src refers to the original text of n.
func (ed *Editor) Src(n ast.Node) Part {
	return Part{s: ed.Off(n.Pos()), e: ed.Off(n.End()), isSrc: true}
}

// Text is the original text of n, without the edits inside it.
func (ed *Editor) Text(n ast.Node) string {
	return string(ed.src[ed.Off(n.Pos()):ed.Off(n.End())])
}

// Len is the number of edits made so far: an edit made after Len returned
// n has an index of n or more.
func (ed *Editor) Len() int { return len(ed.edits) }

// SrcRange refers to the original text between two positions.
func (ed *Editor) SrcRange(from, to token.Pos) Part {
	return Part{s: ed.Off(from), e: ed.Off(to), isSrc: true}
}

func (ed *Editor) add(start, end int, parts []Part) {
	if start > end {
		panic(fmt.Sprintf("edit: bad edit range %d..%d", start, end))
	}
	ed.edits = append(ed.edits, &edit{start: start, end: end, parts: parts, seq: len(ed.edits)})
}

// Replace replaces the text of n.
func (ed *Editor) Replace(n ast.Node, parts ...Part) {
	ed.add(ed.Off(n.Pos()), ed.Off(n.End()), parts)
}

// ReplaceRange replaces the text between two positions.
func (ed *Editor) ReplaceRange(from, to token.Pos, parts ...Part) {
	ed.add(ed.Off(from), ed.Off(to), parts)
}

// Insert adds text at p. Insertions at the same place keep their order, and
// an insertion at the start of a replaced range goes before it.
func (ed *Editor) Insert(p token.Pos, text string) {
	o := ed.Off(p)
	ed.add(o, o, []Part{Lit(text)})
}

// tree orders the edits into a forest by containment.
func (ed *Editor) tree() ([]*edit, error) {
	for _, e := range ed.edits {
		e.children = nil
	}
	es := append([]*edit(nil), ed.edits...)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.start != b.start {
			return a.start < b.start
		}
		az, bz := a.start == a.end, b.start == b.end
		if az != bz {
			return az // insertions before the ranges that start there
		}
		if az {
			return a.seq < b.seq
		}
		if a.end != b.end {
			return a.end > b.end // enclosing first
		}
		return a.seq > b.seq // of two equal ranges the later one encloses
	})
	var roots []*edit
	var stack []*edit
	for _, e := range es {
		for len(stack) > 0 && !contains(stack[len(stack)-1], e) {
			top := stack[len(stack)-1]
			if e.start < top.end && e.end > top.end {
				return nil, fmt.Errorf("overlapping edits %d..%d and %d..%d", top.start, top.end, e.start, e.end)
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, e)
		} else {
			top := stack[len(stack)-1]
			top.children = append(top.children, e)
		}
		if e.start < e.end {
			stack = append(stack, e)
		}
	}
	return roots, nil
}

func contains(t, e *edit) bool {
	if e.start == e.end {
		return t.start < e.start && e.start < t.end
	}
	return t.start <= e.start && e.end <= t.end
}

// Render produces the rewritten file, with trailer appended, and the
// ranges of the original text it kept (by offset; text rendered twice
// gives overlapping ranges). file is the name the //line directives give
// (the original path).
func (ed *Editor) Render(file, trailer string) ([]byte, [][2]int, error) {
	roots, err := ed.tree()
	if err != nil {
		return nil, nil, err
	}
	w := &lineWriter{ed: ed, file: file}
	// The first line of the original is line 1 of file.
	fmt.Fprintf(&w.buf, "//line %s:1\n", file)
	w.vline = 1
	if err := w.rangeWith(0, len(ed.src), roots); err != nil {
		return nil, nil, err
	}
	if trailer != "" {
		if b := w.buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			w.buf.WriteByte('\n')
		}
		w.buf.WriteString(trailer)
	}
	return w.buf.Bytes(), w.emitted, nil
}

// lineWriter writes the output and tracks the line the compiler will
// attribute to the next byte, so that original text always carries its
// original line.
type lineWriter struct {
	ed    *Editor
	file  string
	buf   bytes.Buffer
	vline int
	// emitted records the original ranges copied, for the import check.
	emitted [][2]int
}

func (w *lineWriter) gen(s string) {
	w.buf.WriteString(s)
	w.vline += bytes.Count([]byte(s), []byte{'\n'})
}

func (w *lineWriter) copy(s, e int) {
	if s >= e {
		return
	}
	pos := w.ed.tf.Position(w.ed.tf.Pos(s))
	if pos.Line != w.vline {
		b := w.buf.Bytes()
		if pos.Column == 1 && len(b) > 0 && b[len(b)-1] == '\n' {
			// A //line directive keeps a comment that starts the line
			// (such as //go:embed) at column 1.
			fmt.Fprintf(&w.buf, "//line %s:%d\n", w.file, pos.Line)
		} else {
			fmt.Fprintf(&w.buf, "/*line %s:%d:%d*/", w.file, pos.Line, pos.Column)
		}
		w.vline = pos.Line
	}
	w.buf.Write(w.ed.src[s:e])
	w.vline += bytes.Count(w.ed.src[s:e], []byte{'\n'})
	w.emitted = append(w.emitted, [2]int{s, e})
}

// rangeWith copies src[s:e], applying the edits among es that lie in it.
func (w *lineWriter) rangeWith(s, e int, es []*edit) error {
	pos := s
	for _, c := range es {
		if c.start == c.end {
			if c.start < s || c.start >= e && !(c.start == e && e == len(w.ed.src)) {
				continue
			}
		} else {
			if c.end <= s || c.start >= e {
				continue
			}
			if c.start < s || c.end > e {
				return fmt.Errorf("edit %d..%d straddles the range %d..%d it is used in", c.start, c.end, s, e)
			}
		}
		if c.start < pos {
			return fmt.Errorf("edits out of order at %d", c.start)
		}
		w.copy(pos, c.start)
		if err := w.edit(c); err != nil {
			return err
		}
		pos = c.end
	}
	w.copy(pos, e)
	return nil
}

func (w *lineWriter) edit(c *edit) error {
	for _, p := range c.parts {
		if !p.isSrc {
			w.gen(p.text)
			continue
		}
		if p.s < c.start || p.e > c.end {
			return fmt.Errorf("edit %d..%d refers to text %d..%d outside it", c.start, c.end, p.s, p.e)
		}
		if err := w.rangeWith(p.s, p.e, c.children); err != nil {
			return err
		}
	}
	return nil
}
