package edit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func parseSrc(t *testing.T, src string) (*token.FileSet, *ast.File, *Editor) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "/x/f.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, New(fset.File(f.Pos()), []byte(src))
}

// TestEditNesting checks that edits nest: a replacement refers to the
// original text of its parts, rendered with the edits inside them.
func TestEditNesting(t *testing.T) {
	src := "package p\n\nfunc f() {\n\tch <- <-in\n}\n"
	_, f, ed := parseSrc(t, src)
	send := f.Decls[0].(*ast.FuncDecl).Body.List[0].(*ast.SendStmt)
	recv := send.Value.(*ast.UnaryExpr)
	ed.Replace(recv, Lit("xb.Recv("), ed.Src(recv.X), Lit(")"))
	ed.Replace(send, Lit("xb.Send("), ed.Src(send.Chan), Lit(", "), ed.Src(send.Value), Lit(")"))
	ed.Insert(send.Pos(), "before; ")
	out, _, err := ed.Render("/x/f.go", "")
	if err != nil {
		t.Fatal(err)
	}
	want := "//line /x/f.go:1\npackage p\n\nfunc f() {\n\tbefore; xb.Send(ch, xb.Recv(in))\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestEditLineDirectives checks that text moved to another line carries a
// directive giving its original line, and that the text after it gets its
// own line back.
func TestEditLineDirectives(t *testing.T) {
	src := "package p\n\nvar x = f(a,\n\tb)\n\nvar y = 1\n"
	fset, f, ed := parseSrc(t, src)
	call := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Values[0].(*ast.CallExpr)
	// Swap the arguments: b moves to line 3, a to line 4.
	ed.Replace(call, Lit("g("), ed.Src(call.Args[1]), Lit(", "), ed.Src(call.Args[0]), Lit(")"))
	out, _, err := ed.Render("/x/f.go", "")
	if err != nil {
		t.Fatal(err)
	}
	f2, err := parser.ParseFile(fset, "/tmp/rewritten.go", out, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := map[string]int{}
	ast.Inspect(f2, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			p := fset.Position(id.Pos())
			if p.Filename != "/x/f.go" {
				t.Errorf("%s at %s", id.Name, p)
			}
			lines[id.Name] = p.Line
		}
		return true
	})
	for name, line := range map[string]int{"x": 3, "a": 3, "b": 4, "y": 6} {
		if lines[name] != line {
			t.Errorf("%s at line %d, want %d\n%s", name, lines[name], line, out)
		}
	}
}

// TestEditColumnOneComment checks that a directive in front of a comment
// that starts its line keeps the comment at column 1 (//go:embed).
func TestEditColumnOneComment(t *testing.T) {
	src := "package p\n\nvar a = []int{1,\n2}\n\n//go:embed x\nvar b string\n"
	_, f, ed := parseSrc(t, src)
	lit0 := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Values[0].(*ast.CompositeLit)
	ed.Replace(lit0, Lit("nil"))
	out, _, err := ed.Render("/x/f.go", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\n//go:embed x\n") {
		t.Errorf("//go:embed not at column 1:\n%s", out)
	}
}

func TestEditOverlapIsAnError(t *testing.T) {
	src := "package p\n\nvar x = a + b\n"
	_, f, ed := parseSrc(t, src)
	bin := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Values[0].(*ast.BinaryExpr)
	ed.ReplaceRange(bin.X.Pos(), bin.OpPos+1, Lit("z"))
	ed.ReplaceRange(bin.OpPos, bin.End(), Lit("w"))
	if _, _, err := ed.Render("/x/f.go", ""); err == nil {
		t.Error("overlapping edits rendered")
	}
}
