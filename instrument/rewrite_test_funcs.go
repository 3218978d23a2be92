package instrument

import (
	"go/ast"
	"go/doc"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tests (testFunc, rewrite.go). `func TestX(t *testing.T) { body }` becomes
// `func TestX(t *testing.T) { xb.RunTest(t, func(t *xb.T) { body }) }`, so
// that the scheduler can run the body once per schedule; everywhere else
// *testing.T and testing.TB become *xb.T and xb.TB (see replacements).
// Benchmarks, fuzz targets and examples are dropped: xbtest never runs them
// and their helpers may now take an xb.TB.

type funcKind int

const (
	kindOther funcKind = iota
	kindTest
	kindDrop
)

// testKind classifies a top-level function of a _test.go file as go test
// does (cmd/go/internal/load/test.go).
func testKind(fd *ast.FuncDecl) funcKind {
	if fd.Recv != nil || fd.Type.TypeParams != nil {
		return kindOther
	}
	name := fd.Name.Name
	switch {
	case isTestName(name, "Test") && name != "TestMain" && isTestFunc(fd, "T"):
		return kindTest
	case isTestName(name, "Benchmark") && isTestFunc(fd, "B"),
		isTestName(name, "Fuzz") && isTestFunc(fd, "F"),
		strings.HasPrefix(name, "Example") && fd.Type.Params.NumFields() == 0 && fd.Type.Results.NumFields() == 0:
		return kindDrop
	}
	return kindOther
}

func isTestName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	if len(name) == len(prefix) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(name[len(prefix):])
	return !unicode.IsLower(r)
}

// isTestFunc reports whether fd has the signature func(*testing.<arg>).
func isTestFunc(fd *ast.FuncDecl, arg string) bool {
	ft := fd.Type
	if ft.Results.NumFields() > 0 || ft.Params == nil || len(ft.Params.List) != 1 || len(ft.Params.List[0].Names) > 1 {
		return false
	}
	ptr, ok := ft.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := ptr.X.(type) {
	case *ast.Ident:
		return x.Name == arg
	case *ast.SelectorExpr:
		return x.Sel.Name == arg
	}
	return false
}

// runnableExample reports whether name is an example go test runs: one
// with an output comment (go/doc's reading of it).
func (r *fileRW) runnableExample(name string) bool {
	if !strings.HasPrefix(name, "Example") {
		return false
	}
	if r.examples == nil {
		r.examples = map[string]bool{}
		for _, ex := range doc.Examples(r.file) {
			if ex.Output != "" || ex.EmptyOutput {
				r.examples["Example"+ex.Name] = true
			}
		}
	}
	return r.examples[name]
}
