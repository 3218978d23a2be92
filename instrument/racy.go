package instrument

import (
	"bytes"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"strings"
	"sync"
)

// racyDirective marks a variable or struct field that races by design
// (scheduler/internal/engine/racy.go says what xbtest then does): in the declaration's doc
// comment or at the end of its line,
//
//	//xbtest:racy <reason>
const racyDirective = "//xbtest:racy"

// racyReason returns the reason of the directive on the variable or field
// an access site names (x, p.f, a[i] of a racy array), or "" if it has
// none. The directive is read from the declaration's source lines, so that
// a field declared in one package is racy where another accesses it.
func racyReason(fset *token.FileSet, info *types.Info, e ast.Expr) (string, bool) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.Ident:
			return directiveOf(fset, info.ObjectOf(x))
		case *ast.SelectorExpr:
			if sel := info.Selections[x]; sel != nil {
				return directiveOf(fset, sel.Obj())
			}
			return directiveOf(fset, info.ObjectOf(x.Sel))
		}
		return "", false
	}
}

func directiveOf(fset *token.FileSet, obj types.Object) (string, bool) {
	v, ok := obj.(*types.Var)
	if !ok || !v.Pos().IsValid() {
		return "", false
	}
	pos := fset.Position(v.Pos())
	lines := sourceLines(pos.Filename)
	if pos.Line < 1 || pos.Line > len(lines) {
		return "", false
	}
	if i := strings.Index(lines[pos.Line-1], racyDirective); i >= 0 {
		return reasonAfter(lines[pos.Line-1][i:])
	}
	// The doc comment: the comment lines right above.
	for l := pos.Line - 2; l >= 0; l-- {
		s := strings.TrimSpace(lines[l])
		if !strings.HasPrefix(s, "//") {
			break
		}
		if strings.HasPrefix(s, racyDirective) {
			return reasonAfter(s)
		}
	}
	return "", false
}

func reasonAfter(s string) (string, bool) {
	s = strings.TrimPrefix(s, racyDirective)
	if s != "" && s[0] != ' ' && s[0] != '\t' {
		return "", false // another directive that starts alike
	}
	return strings.TrimSpace(s), true
}

var sourceCache sync.Map // file name -> []string

func sourceLines(name string) []string {
	if v, ok := sourceCache.Load(name); ok {
		return v.([]string)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	lines := strings.Split(string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))), "\n")
	sourceCache.Store(name, lines)
	return lines
}
