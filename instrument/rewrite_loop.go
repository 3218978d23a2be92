package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// Loops: every loop body starts with xb.Step(), so that a loop without
// scheduling points still counts towards the step bound; loops over
// channels receive through the scheduler; loops over maps iterate in a
// fixed order.

func (r *fileRW) forStmt(s *ast.ForStmt) {
	r.stmt(s.Init, false)
	r.expr(s.Cond)
	r.stmt(s.Post, false)
	r.loopBody(s.Body, nil, r.loopVarAllocs(s.Init))
}

// perLoopVars reports whether the variables a for clause declares are one
// per loop, not one per iteration: the file's language version is below Go
// 1.22 (the module's go line, or the file's //go:build go1.N line). Then
// goroutines of different iterations share a range loop's variables, and
// the loop's implicit assignments to them at each iteration are writes
// another goroutine's reads race with, as go test -race reports.
func (r *fileRW) perLoopVars() bool {
	return r.goVersion != "" && version.Compare(r.goVersion, "go1.22") < 0
}

// rangeVarWrites returns the reports of the writes a range loop's header
// makes to the shared variables it declares, one per loop, at each
// iteration: xb.Wrote(&v, pos) right after the write, in its atomic block.
// With per-iteration variables (Go 1.22) each is a new variable, written
// before any other goroutine can see it: nothing to report.
func (r *fileRW) rangeVarWrites(s *ast.RangeStmt) []string {
	if s.Tok != token.DEFINE || !r.perLoopVars() {
		return nil
	}
	var out []string
	for _, e := range []ast.Expr{s.Key, s.Value} {
		id, ok := e.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		v, ok := r.info.Defs[id].(*types.Var)
		if !ok || !r.shared[v] {
			continue
		}
		if name, ok := r.helperName(id, hWrote, v.Type()); ok {
			out = append(out, fmt.Sprintf("%s(&%s, %s)", name, id.Name, r.site(id)))
		}
	}
	return out
}

// loopVarAllocs registers the shared variables a for clause declares, at
// the start of each iteration (one per iteration since Go 1.22).
func (r *fileRW) loopVarAllocs(init ast.Stmt) []string {
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil
	}
	var out []string
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok {
			if a := r.allocText(id); a != "" {
				out = append(out, a)
			}
		}
	}
	return out
}

// loopBody starts the loop body with xb.Step(), after the reports of the
// writes the loop header did (pre) and before the registrations of the
// variables it declared (allocs).
func (r *fileRW) loopBody(body *ast.BlockStmt, pre, allocs []string) {
	text := ""
	for _, a := range pre {
		text += " " + a + ";"
	}
	text += " " + r.X("Step") + "();"
	for _, a := range allocs {
		text += " " + a + ";"
	}
	r.ed.Insert(body.Lbrace+1, text)
	r.stmtList(body.List)
}

func (r *fileRW) rangeStmt(s *ast.RangeStmt) {
	switch u := under(r.typeOf(s.X)).(type) {
	case *types.Chan:
		r.rangeChan(s, u)
		r.loopBody(s.Body, nil, nil)
		return
	case *types.Map:
		r.rangeMap(s, u)
		r.loopBody(s.Body, nil, nil)
		return
	case *types.Array:
		r.access(s.X) // ranging over an array copies it
	default:
		r.expr(s.X)
	}
	var allocs []string
	for _, e := range []ast.Expr{s.Key, s.Value} {
		if e == nil {
			continue
		}
		if s.Tok == token.DEFINE {
			if id, ok := e.(*ast.Ident); ok {
				if a := r.allocText(id); a != "" {
					allocs = append(allocs, a)
				}
			}
			continue
		}
		r.rangeTarget(e)
	}
	if w := r.rangeVarWrites(s); len(w) > 0 {
		// One variable per loop: registered before its write is reported.
		r.loopBody(s.Body, append(allocs, w...), nil)
		return
	}
	r.loopBody(s.Body, nil, allocs)
}

// rangeTarget handles an iteration variable assigned by `for k, v = range`:
// each iteration writes it.
func (r *fileRW) rangeTarget(l ast.Expr) {
	if isBlank(l) {
		return
	}
	if ix := r.mapIndex(l); ix != nil {
		r.expr(ix.Index)
		r.mapAccess(ix.X, hMapStore)
		return
	}
	if !r.loc(l) || !r.info.Types[l].Addressable() {
		return
	}
	if name, ok := r.helperName(l, hStore, r.typeOf(l)); ok {
		r.ed.Replace(l, edit.Lit("*"+name+"(&"), r.ed.Src(l), edit.Lit(", "+r.site(l)+")"))
	}
}

// rangeMap rewrites a loop over a map into a loop over its keys in a fixed
// order:
//
//	for k, v := range m {
//
// becomes
//
//	for _xbit1, k, v := _xbMapIter(m, pos); _xbit1.next(&k, &v); {
//
// As for channels, the for clause declares the iteration variables, so
// their per-loop or per-iteration semantics follow the file's Go version.
// With `=`, the targets are assigned at the start of the body.
func (r *fileRW) rangeMap(s *ast.RangeStmt, mt *types.Map) {
	r.expr(s.X)
	iter, ok := r.helperName(s, hMapIter, r.typeOf(s.X), mt.Key(), mt.Elem())
	if !ok {
		return
	}
	it := r.temp("_xbit")
	vars := [2]ast.Expr{s.Key, s.Value}
	var decl, args [2][]edit.Part
	var assigns []edit.Part
	var allocs []string
	for i, e := range vars {
		switch {
		case e == nil || isBlank(e):
			decl[i] = []edit.Part{edit.Lit("_")}
			args[i] = []edit.Part{edit.Lit("nil")}
		case s.Tok == token.DEFINE:
			decl[i] = []edit.Part{r.ed.Src(e)}
			args[i] = []edit.Part{edit.Lit("&"), r.ed.Src(e)}
			if a := r.allocText(e.(*ast.Ident)); a != "" {
				allocs = append(allocs, a)
			}
		default:
			t := r.temp("_xbk")
			decl[i] = []edit.Part{edit.Lit(t)}
			args[i] = []edit.Part{edit.Lit("&" + t)}
			assigns = append(assigns, edit.Lit(" "))
			assigns = append(assigns, r.assignTo(e, t)...)
			assigns = append(assigns, edit.Lit(";"))
		}
	}
	head := []edit.Part{edit.Lit("for " + it + ", ")}
	head = append(head, decl[0]...)
	head = append(head, edit.Lit(", "))
	head = append(head, decl[1]...)
	head = append(head, edit.Lit(" := "+iter+"("), r.ed.Src(s.X), edit.Lit(", "+r.site(s.X)+"); "+it+".next("))
	head = append(head, args[0]...)
	head = append(head, edit.Lit(", "))
	head = append(head, args[1]...)
	head = append(head, edit.Lit("); {"))
	head = append(head, assigns...)
	for _, a := range allocs {
		head = append(head, edit.Lit(" "+a+";"))
	}
	for _, w := range r.rangeVarWrites(s) {
		head = append(head, edit.Lit(" "+w+";"))
	}
	r.ed.ReplaceRange(s.For, s.Body.Lbrace+1, head...)
}
