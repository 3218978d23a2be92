package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The cold path of a statement.
//
// Every reported access tests the scheduler's hot flag (scheduler.Read):
// until the execution has a second goroutine there is nothing to report.
// A test per access costs a sequential loop more than the accesses
// themselves, since the call on the hot side makes the compiler keep
// registers free around each one. A statement that calls nothing cannot
// start a goroutine or reach a scheduling point, so the flag cannot change
// while it runs: tested once, before it, it decides for all its accesses.
// Such a statement, when the rewrite changed it, becomes (coldPath,
// rewrite.go)
//
//	if xb.Cold() { original } else { rewritten }
//
// on its own line, so positions stay the original's. Under -memory tso|pso
// the helpers carry values through the store buffers and a cold path would
// bypass them; there the statement is left as rewritten.

// callFree reports whether s calls nothing (no function, method, conversion
// or builtin; no channel operation) and names only this package's objects,
// using values of plain types only (basic types, pointers, slices, maps;
// a struct or an array only as the operand of a selector or an index): its
// original text means what it meant, whatever the rewrite replaced
// elsewhere (sync types, other packages' identifiers), and copies no value
// the rewrite treats specially (structs and arrays may hold sync types).
func callFree(info *types.Info, pkg *types.Package, s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.IncDecStmt:
		return plainExpr(info, pkg, s.X, false)
	case *ast.AssignStmt:
		for _, e := range append(append([]ast.Expr(nil), s.Lhs...), s.Rhs...) {
			if !plainExpr(info, pkg, e, false) {
				return false
			}
		}
		return true
	}
	return false
}

// plainExpr is callFree for an expression; operand says whether e is the
// operand of a selector or an index, whose value is not copied.
func plainExpr(info *types.Info, pkg *types.Package, e ast.Expr, operand bool) bool {
	tv, found := info.Types[e]
	if id, isIdent := e.(*ast.Ident); isIdent && id.Name == "_" {
		return true
	}
	if !found {
		return false
	}
	if tv.Value != nil {
		return true // a constant
	}
	if !operand && !plainType(tv.Type) {
		return false
	}
	switch e := e.(type) {
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		return ok && v.Pkg() == pkg
	case *ast.ParenExpr:
		return plainExpr(info, pkg, e.X, operand)
	case *ast.BinaryExpr:
		return plainExpr(info, pkg, e.X, false) && plainExpr(info, pkg, e.Y, false)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && plainExpr(info, pkg, e.X, false)
	case *ast.StarExpr:
		return plainExpr(info, pkg, e.X, false)
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		return sel != nil && sel.Kind() == types.FieldVal && sel.Obj().Pkg() == pkg && plainExpr(info, pkg, e.X, true)
	case *ast.IndexExpr:
		if isInstance(info, e.X) {
			return false
		}
		return plainExpr(info, pkg, e.X, true) && plainExpr(info, pkg, e.Index, false)
	}
	return false
}

// plainType reports whether t is a basic type, a pointer, a slice or a map.
func plainType(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Basic, *types.Pointer, *types.Slice, *types.Map:
		return true
	}
	return false
}
