package instrument

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// goStmt rewrites `go f(a, b)` into
//
//	{ _xbg1, _xbg2 := a, b; xb.Go(func() { f(_xbg1, _xbg2) }) }
//
// evaluating the function value and the arguments in the calling goroutine,
// before the spawn, as Go does. A function named statically (a package
// function, a function literal, a builtin, a method expression) needs no
// evaluation; a method value or a function variable is evaluated into a
// temporary, which binds the receiver now. Constants are passed as they
// are, so that they keep being converted to the parameter types.
func (r *fileRW) goStmt(s *ast.GoStmt) {
	call := s.Call
	var (
		names, vals []edit.Part
		fn          []edit.Part
	)
	add := func(v ...edit.Part) string {
		n := r.temp("_xbg")
		if len(names) > 0 {
			names = append(names, edit.Lit(", "))
			vals = append(vals, edit.Lit(", "))
		}
		names = append(names, edit.Lit(n))
		vals = append(vals, v...)
		return n
	}
	fun := unparen(call.Fun)
	if lit0, ok := fun.(*ast.FuncLit); ok && len(call.Args) == 0 && lit0.Type.Params.NumFields() == 0 && lit0.Type.Results.NumFields() == 0 {
		// go func() { ... }(): the literal is the goroutine's function.
		r.expr(call.Fun)
		r.ed.Replace(s, edit.Lit(r.X("Go")+"("), r.ed.Src(call.Fun), edit.Lit(")"))
		return
	}
	switch {
	case isBuiltin(r.info, fun):
		name := calleeIdent(fun).Name
		fn = []edit.Part{edit.Lit(name)}
		if name == "close" && len(call.Args) == 1 {
			if u, ok := under(r.typeOf(call.Args[0])).(*types.Chan); ok {
				if n, ok := r.helperName(call, hClose, u.Elem()); ok {
					fn = []edit.Part{edit.Lit(n)}
				}
			}
		}
	case staticFunc(r.info, fun):
		r.expr(call.Fun)
		fn = []edit.Part{r.ed.Src(call.Fun)}
	default:
		r.expr(call.Fun)
		fn = []edit.Part{edit.Lit(add(r.ed.Src(call.Fun)))}
	}
	var args []edit.Part
	argsep := func() {
		if len(args) > 0 {
			args = append(args, edit.Lit(", "))
		}
	}
	if len(call.Args) == 1 {
		if tup, ok := r.typeOf(call.Args[0]).(*types.Tuple); ok && tup.Len() > 1 {
			// go f(g()) with g returning several values.
			r.expr(call.Args[0])
			var ns []string
			for range tup.Len() {
				ns = append(ns, r.temp("_xbg"))
			}
			if len(names) > 0 {
				// The function value comes first: evaluate it in its own
				// statement.
				names = append(names, edit.Lit(" := "))
				names = append(names, vals...)
				names = append(names, edit.Lit("; "+strings.Join(ns, ", ")))
				vals = []edit.Part{r.ed.Src(call.Args[0])}
			} else {
				names = []edit.Part{edit.Lit(strings.Join(ns, ", "))}
				vals = []edit.Part{r.ed.Src(call.Args[0])}
			}
			args = []edit.Part{edit.Lit(strings.Join(ns, ", "))}
			r.emitGo(s, names, vals, fn, args, false)
			return
		}
	}
	for _, a := range call.Args {
		argsep()
		tv := r.info.Types[a]
		if tv.Value != nil || tv.IsNil() {
			args = append(args, r.ed.Src(a))
			continue
		}
		r.expr(a)
		args = append(args, edit.Lit(add(r.ed.Src(a))))
	}
	r.emitGo(s, names, vals, fn, args, call.Ellipsis.IsValid())
}

func (r *fileRW) emitGo(s *ast.GoStmt, names, vals, fn, args []edit.Part, ellipsis bool) {
	var out []edit.Part
	if len(names) > 0 {
		out = append(out, edit.Lit("{ "))
		out = append(out, names...)
		out = append(out, edit.Lit(" := "))
		out = append(out, vals...)
		out = append(out, edit.Lit("; "))
	}
	out = append(out, edit.Lit(r.X("Go")+"(func() { "))
	out = append(out, fn...)
	out = append(out, edit.Lit("("))
	out = append(out, args...)
	if ellipsis {
		out = append(out, edit.Lit("..."))
	}
	out = append(out, edit.Lit(") })"))
	if len(names) > 0 {
		out = append(out, edit.Lit(" }"))
	}
	r.ed.Replace(s, out...)
}

func isBuiltin(info *types.Info, fun ast.Expr) bool {
	_, ok := info.Uses[calleeIdent(fun)].(*types.Builtin)
	return ok
}

// staticFunc reports whether fun names a function without evaluating
// anything: a function literal, a package-level function (possibly
// instantiated), a method expression.
func staticFunc(info *types.Info, fun ast.Expr) bool {
	switch f := unparen(fun).(type) {
	case *ast.FuncLit:
		return true
	case *ast.Ident:
		_, ok := info.Uses[f].(*types.Func)
		return ok
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			return sel.Kind() == types.MethodExpr
		}
		_, ok := info.Uses[f.Sel].(*types.Func)
		return ok
	case *ast.IndexExpr:
		return staticFunc(info, f.X)
	case *ast.IndexListExpr:
		return staticFunc(info, f.X)
	}
	return false
}
