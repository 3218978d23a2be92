package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
)

// sharedLocals finds the local variables of a file that another goroutine
// may access, with a simple conservative test: a variable is shared if a
// function literal that may run on another goroutine captures it (any
// literal except one called on the spot, or deferred, without go), or if
// its address is taken (&x, x[:] of an array, a pointer method called on
// x). The accesses of other locals need no report.
func sharedLocals(info *types.Info, f *ast.File) map[*types.Var]bool {
	shared := map[*types.Var]bool{}
	var stack []ast.Node
	type litFrame struct {
		lit     *ast.FuncLit
		escapes bool
	}
	var lits []litFrame
	isLocal := func(v *types.Var) bool {
		return !v.IsField() && v.Pkg() != nil && v.Parent() != nil && v.Parent() != v.Pkg().Scope() && v.Parent() != types.Universe
	}
	markRoot := func(e ast.Expr) {
		if v := rootVar(info, e); v != nil && isLocal(v) {
			shared[v] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(lits) > 0 && lits[len(lits)-1].lit == top {
				lits = lits[:len(lits)-1]
			}
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, litFrame{n, litEscapes(stack)})
		case *ast.Ident:
			v, ok := info.Uses[n].(*types.Var)
			if !ok || !isLocal(v) || shared[v] {
				break
			}
			for i := len(lits) - 1; i >= 0; i-- {
				l := lits[i].lit
				if l.Pos() <= v.Pos() && v.Pos() < l.End() {
					break // declared inside this literal
				}
				if lits[i].escapes {
					shared[v] = true
					break
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				markRoot(n.X)
			}
		case *ast.SliceExpr:
			if _, ok := under(info.TypeOf(n.X)).(*types.Array); ok {
				markRoot(n.X)
			}
		case *ast.SelectorExpr:
			sel := info.Selections[n]
			if sel == nil || sel.Kind() != types.MethodVal || sel.Indirect() {
				break
			}
			recv := sel.Obj().(*types.Func).Type().(*types.Signature).Recv()
			if recv != nil && isPointer(recv.Type()) && !isPointer(info.TypeOf(n.X)) {
				markRoot(n.X)
			}
		}
		return true
	})
	return shared
}

// litEscapes reports whether the function literal on top of stack may run
// on another goroutine or after its enclosing function returns: anything
// but f() and defer f() of the literal itself.
func litEscapes(stack []ast.Node) bool {
	i := len(stack) - 2
	for i >= 0 {
		if _, ok := stack[i].(*ast.ParenExpr); !ok {
			break
		}
		i--
	}
	if i < 0 {
		return true
	}
	call, ok := stack[i].(*ast.CallExpr)
	if !ok || unparen(call.Fun) != stack[len(stack)-1] {
		return true
	}
	if i > 0 {
		if _, ok := stack[i-1].(*ast.GoStmt); ok {
			return true
		}
	}
	return false
}

// rootVar returns the variable whose storage e denotes part of: x in x,
// x.f (x a struct), x[i] (x an array); nil when e goes through a pointer
// or a slice.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			return v
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() || isPointer(info.TypeOf(x.X)) {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			if _, ok := under(info.TypeOf(x.X)).(*types.Array); !ok {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}
