package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// Memory accesses. A read of a shared variable x (a package-level variable
// of a rewritten package, a local another goroutine can reach, anything
// reached through a pointer or a slice) becomes _xbLoad(&x, pos), which
// reports the read and then loads; an assignment x = v becomes
// _xbAssign(&x, v, pos), which reports the write after v is evaluated and
// then stores, so that the report falls into the atomic block of the store
// even when v blocks (x = <-ch). A map is one location; its operand is
// wrapped: _xbMapLoad(m, pos)[k].

var hAssign = &helper{"_xbAssign", []string{"T"}, "p *{T}, v {T}, pos {xb}.Pos", "", "p, v, pos"}

// sharedVar reports whether another goroutine may access v.
func (r *fileRW) sharedVar(v *types.Var) bool {
	if v.IsField() || v.Pkg() == nil {
		return false
	}
	if v.Parent() == v.Pkg().Scope() {
		return r.u.rewritten[v.Pkg().Path()]
	}
	return r.shared[v]
}

// access handles the read of an expression that denotes a variable.
func (r *fileRW) access(e ast.Expr) {
	if r.loc(e) {
		r.wrapRead(e)
	}
}

func (r *fileRW) wrapRead(e ast.Expr) {
	if !r.info.Types[e].Addressable() {
		return
	}
	name, ok := r.helperName(e, hLoad, r.typeOf(e))
	if !ok {
		return
	}
	r.ed.Replace(e, edit.Lit(name+"(&"), r.ed.Src(e), edit.Lit(", "+r.site(e)+")"))
}

// loc visits the operands of e, an expression used as a location (read,
// written or addressed), and reports whether that location may be shared.
// The pointers, slices and indices e goes through are read.
func (r *fileRW) loc(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return r.loc(e.X)
	case *ast.Ident:
		v, ok := r.info.Uses[e].(*types.Var)
		return ok && r.sharedVar(v)
	case *ast.SelectorExpr:
		sel := r.info.Selections[e]
		if sel == nil {
			if r.replaceName(e) {
				return false
			}
			v, ok := r.info.Uses[e.Sel].(*types.Var)
			return ok && r.sharedVar(v)
		}
		if sel.Kind() != types.FieldVal {
			r.expr(e)
			return false
		}
		if isPointer(r.typeOf(e.X)) {
			r.expr(e.X)
			return true
		}
		shared := r.loc(e.X)
		return shared || sel.Indirect()
	case *ast.IndexExpr:
		switch under(r.typeOf(e.X)).(type) {
		case *types.Array:
			r.expr(e.Index)
			return r.loc(e.X) && r.info.Types[e].Addressable()
		case *types.Pointer, *types.Slice:
			r.expr(e.X)
			r.expr(e.Index)
			return true
		}
		r.expr(e.X)
		r.expr(e.Index)
		return false
	case *ast.StarExpr:
		r.expr(e.X)
		return true
	}
	r.expr(e)
	return false
}

func isPointer(t types.Type) bool {
	_, ok := under(t).(*types.Pointer)
	return ok
}

func isMap(t types.Type) bool {
	_, ok := under(t).(*types.Map)
	return ok
}

// mapIndex returns e as an index expression on a map, or nil.
func (r *fileRW) mapIndex(e ast.Expr) *ast.IndexExpr {
	ix, ok := unparen(e).(*ast.IndexExpr)
	if !ok || !isMap(r.typeOf(ix.X)) {
		return nil
	}
	return ix
}

// mapAccess wraps the map operand m: h(m, pos).
func (r *fileRW) mapAccess(m ast.Expr, h *helper) {
	r.expr(m)
	mt := r.typeOf(m)
	u, ok := under(mt).(*types.Map)
	if !ok {
		return
	}
	name, ok := r.helperName(m, h, mt, u.Key(), u.Elem())
	if !ok {
		return
	}
	r.ed.Replace(m, edit.Lit(name+"("), r.ed.Src(m), edit.Lit(", "+r.site(m)+")"))
}

// methodRecv handles the receiver of a method value or call x.M.
func (r *fileRW) methodRecv(e *ast.SelectorExpr, sel *types.Selection) {
	xt := r.typeOf(e.X)
	if isPointer(xt) || types.IsInterface(xt) {
		r.expr(e.X)
		return
	}
	fn := sel.Obj().(*types.Func)
	if !isPointer(fn.Type().(*types.Signature).Recv().Type()) {
		r.access(e.X) // a value receiver is a copy
		return
	}
	if sel.Indirect() {
		r.loc(e.X) // through an embedded pointer
		return
	}
	// x.M() with a pointer method takes x's address, which is no access of
	// x (Go's race detector does not instrument it either): the method's
	// own reads and writes are the accesses. Those of a rewritten package
	// are reported where they happen; a synchronization method (a mutex
	// that x is or embeds: s.mu.Lock() with mu a struct{ sync.Mutex; n int })
	// is no memory access. Code xbtest does not rewrite (bytes.Buffer,
	// list.List) accesses x without reporting it: report a write of the
	// whole object.
	recv := fn.Type().(*types.Signature).Recv().Type()
	if !r.loc(e.X) || syncType(xt) || syncType(recv) || fn.Pkg() == nil || r.u.rewritten[fn.Pkg().Path()] {
		return
	}
	if !r.info.Types[e.X].Addressable() {
		return
	}
	name, ok := r.helperName(e.X, hStore, xt)
	if !ok {
		return
	}
	r.ed.Replace(e.X, edit.Lit(name+"(&"), r.ed.Src(e.X), edit.Lit(", "+r.site(e.X)+")"))
}

// addrOf handles &x: no access of x itself; &T{...} allocates.
func (r *fileRW) addrOf(e *ast.UnaryExpr) {
	if cl, ok := unparen(e.X).(*ast.CompositeLit); ok {
		r.compositeLit(cl)
		if pt, ok := r.typeOf(e).(*types.Pointer); ok {
			r.wrapCall(e, hNew, pt.Elem())
		}
		return
	}
	r.loc(e.X)
}

// drain wraps x, of type t, in _xbDrained, if it is not nil (foreign.go).
func (r *fileRW) drain(x ast.Expr, t types.Type) {
	if x != nil {
		r.wrapCall(x, hDrained, t)
	}
}

// wrapCall replaces e by h(e).
func (r *fileRW) wrapCall(e ast.Expr, h *helper, targs ...types.Type) {
	name, ok := r.helperName(e, h, targs...)
	if !ok {
		return
	}
	r.ed.Replace(e, edit.Lit(name+"("), r.ed.Src(e), edit.Lit(")"))
}

// assign handles an assignment statement.
func (r *fileRW) assign(s *ast.AssignStmt, inList bool) {
	rhsDone := false
	if len(s.Lhs) == 2 && len(s.Rhs) == 1 {
		if u := recvExpr(s.Rhs[0]); u != nil {
			r.recv(u, true)
			rhsDone = true
		}
	}
	if !rhsDone {
		for _, e := range s.Rhs {
			r.expr(e)
		}
	}
	switch s.Tok {
	case token.DEFINE:
		vals := r.splitValues(s)
		var after []edit.Part
		for i, l := range s.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name == "_" {
				continue
			}
			if r.info.Defs[id] != nil {
				if a := r.allocText(id); a != "" {
					after = append(after, edit.Lit("; "+a))
				}
				continue
			}
			// := assigns the variables it does not declare.
			v, ok := r.info.Uses[id].(*types.Var)
			if !ok || !r.sharedVar(v) {
				continue
			}
			if vals != nil && inList {
				// a, x := f() becomes a, _xbv1 := f(); x = _xbv1 with
				// the store of x reported as any other.
				val := vals[i]
				if val.temp {
					name := r.temp("_xbv")
					r.ed.Replace(id, edit.Lit(name))
					val.part = edit.Lit(name)
				} else {
					r.ed.Replace(id, edit.Lit("_"))
				}
				if a := r.assignment(l, edit.Lit(id.Name), []edit.Part{val.part}); a != nil {
					after = append(append(after, edit.Lit("; ")), a...)
					continue
				}
			}
			if name, ok := r.helperName(id, hWrote, v.Type()); ok {
				after = append(after, edit.Lit(fmt.Sprintf("; %s(&%s, %s)", name, id.Name, r.site(id))))
			}
		}
		if len(after) > 0 && inList {
			r.ed.Replace(s, append([]edit.Part{r.ed.Src(s)}, after...)...)
		}
	case token.ASSIGN:
		if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
			r.assign1(s, s.Lhs[0], s.Rhs[0])
		} else {
			r.assignN(s, inList)
		}
	default:
		r.opAssign(s, s.Lhs[0], s.Rhs[0], strings.TrimSuffix(s.Tok.String(), "="), inList)
	}
}

func isBlank(e ast.Expr) bool {
	id, ok := unparen(e).(*ast.Ident)
	return ok && id.Name == "_"
}

// storeTarget does what a store to l needs when l is the blank identifier
// (nothing) or a map element (its index, then the map's store), and
// reports whether l is an addressable shared location whose store the
// caller rewrites.
func (r *fileRW) storeTarget(l ast.Expr) bool {
	if isBlank(l) {
		return false
	}
	if ix := r.mapIndex(l); ix != nil {
		r.expr(ix.Index)
		r.mapAccess(ix.X, hMapStore)
		return false
	}
	return r.loc(l) && r.info.Types[l].Addressable()
}

// assign1 handles l = rhs.
func (r *fileRW) assign1(s ast.Stmt, l, rhs ast.Expr) {
	if !r.storeTarget(l) {
		return
	}
	if a := r.assignment(l, r.ed.Src(l), []edit.Part{r.ed.Src(rhs)}); a != nil {
		r.ed.Replace(s, a...)
	}
}

// assignment returns the text of l = rhs for a shared location l whose
// operands were visited, written target: _xbAt(&target, pos).set(rhs),
// which reports the write after rhs is evaluated and converts rhs as an
// assignment does, or, in a file without generics, a wrapper
// _xbAssign(&target, rhs, pos) whose concrete parameter types convert.
func (r *fileRW) assignment(l ast.Expr, target edit.Part, rhs []edit.Part) []edit.Part {
	return r.assignThrough(l, []edit.Part{edit.Lit("&"), target}, rhs)
}

// assignmentAt is assignment with the target's address, addr, computed
// before.
func (r *fileRW) assignmentAt(l ast.Expr, addr edit.Part, rhs []edit.Part) []edit.Part {
	return r.assignThrough(l, []edit.Part{addr}, rhs)
}

func (r *fileRW) assignThrough(l ast.Expr, addr, rhs []edit.Part) []edit.Part {
	pos := r.site(l)
	if r.generics {
		out := append(append([]edit.Part{edit.Lit("_xbAt(")}, addr...), edit.Lit(", "+pos+").set("))
		return append(append(out, rhs...), edit.Lit(")"))
	}
	name, ok := r.helperName(l, hAssign, r.typeOf(l))
	if !ok {
		return nil
	}
	out := append(append([]edit.Part{edit.Lit(name + "(")}, addr...), edit.Lit(", "))
	return append(append(out, rhs...), edit.Lit(", "+pos+")"))
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// typedCall reports whether e is a call or a receive, whose value has the
// type a temporary declared with := gets (not an untyped constant
// expression, such as 1 << f(), which takes the type of its context).
func typedCall(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}

// opAssign handles l op= rhs (and l++ with rhs nil and op "+" or "-").
// inList says whether the statement may be replaced by a block.
func (r *fileRW) opAssign(s ast.Stmt, l, rhs ast.Expr, op string, inList bool) {
	if ix := r.mapIndex(l); ix != nil {
		r.expr(ix.Index)
		r.mapAccess(ix.X, hMapRMW)
		return
	}
	if !r.loc(l) || !r.info.Types[l].Addressable() {
		return
	}
	lt := r.typeOf(l)
	if r.pure(l) {
		// l = l op (rhs), reporting the read before the load and the
		// write before the store.
		load, ok := r.helperName(s, hLoad, lt)
		if !ok {
			return
		}
		operand := []edit.Part{edit.Lit("1")}
		if rhs != nil {
			operand = []edit.Part{edit.Lit("("), r.ed.Src(rhs), edit.Lit(")")}
		}
		if _, isIdent := unparen(l).(*ast.Ident); !isIdent && inList {
			// The target is evaluated once, as Go evaluates it: its
			// address (an index, a field, through a pointer) is computed
			// and its own reads reported once, not for the load and again
			// for the store:
			//	{ _xbp1 := &l; _xbAt(_xbp1, pos).set(_xbLoad(_xbp1, pos) op (rhs)) }
			p := r.temp("_xbp")
			val := append([]edit.Part{edit.Lit(load + "(" + p + ", " + r.site(l) + ") " + op + " ")}, operand...)
			if a := r.assignmentAt(l, edit.Lit(p), val); a != nil {
				r.ed.Replace(s, append(append([]edit.Part{edit.Lit("{ " + p + " := &"), r.ed.Src(l), edit.Lit("; ")}, a...), edit.Lit(" }"))...)
			}
			return
		}
		val := append([]edit.Part{edit.Lit(load + "(&"), r.ed.Src(l), edit.Lit(", " + r.site(l) + ") " + op + " ")}, operand...)
		if a := r.assignment(l, r.ed.Src(l), val); a != nil {
			r.ed.Replace(s, a...)
		}
		return
	}
	name, ok := r.helperName(l, hRMW, lt)
	if !ok {
		return
	}
	if inList && rhs != nil && r.hasCall(rhs) && typedCall(rhs) {
		// The target's calls come first, then rhs, then the read and the
		// write, reported right before them (in the block they happen
		// in, even when rhs ends blocks):
		//	{ _xbp1 := &l; _xbv2 := rhs; *_xbRMW(_xbp1, pos) op= _xbv2 }
		p, v := r.temp("_xbp"), r.temp("_xbv")
		r.ed.Replace(s, edit.Lit("{ "+p+" := &"), r.ed.Src(l), edit.Lit("; "+v+" := "), r.ed.Src(rhs),
			edit.Lit("; *"+name+"("+p+", "+r.site(l)+") "+op+"= "+v+" }"))
		return
	}
	r.ed.Replace(l, edit.Lit("*"+name+"(&"), r.ed.Src(l), edit.Lit(", "+r.site(l)+")"))
	if r.u.gen.buffered && rhs != nil && r.hasCall(rhs) {
		// -memory tso|pso: the write goes to memory after rhs ran; fence
		// the stores rhs buffered first (helpers.go, _xbFenced).
		if t := r.typeOf(rhs); t != nil && !isUntyped(t) {
			if name, ok := r.helperName(rhs, hFenced, t); ok {
				r.ed.Replace(rhs, edit.Lit(name+"("), r.ed.Src(rhs), edit.Lit(")"))
			}
		}
	}
}

func (r *fileRW) incDec(s *ast.IncDecStmt, inList bool) {
	op := "+"
	if s.Tok == token.DEC {
		op = "-"
	}
	r.opAssign(s, s.X, nil, op, inList)
}

// assignN handles tuple assignments. In a statement list, with targets
// that can be evaluated after the right-hand side and values whose types
// a temporary keeps (splitValues), the statement is split:
//
//	x, y = f()   becomes   { _xbv1, _xbv2 := f(); x = _xbv1; y = _xbv2 }
//
// with each store reported as a single assignment's is: right before it,
// in its own block at access granularity, through the store buffer under
// -memory tso|pso. Otherwise, after a right-hand side that calls functions
// the writes are reported after the statement (when the targets can be
// evaluated again: scheduler.Wrote, in the block of the write); otherwise
// before the evaluation.
func (r *fileRW) assignN(s *ast.AssignStmt, inList bool) {
	if inList && r.pureTargets(s.Lhs) {
		if vals := r.splitValues(s); vals != nil {
			r.splitAssign(s, vals)
			return
		}
	}
	later := inList && r.anyCall(s.Rhs) && r.pureTargets(s.Lhs)
	var after []edit.Part
	for _, l := range s.Lhs {
		if !r.storeTarget(l) {
			continue
		}
		lt := r.typeOf(l)
		if later {
			if name, ok := r.helperName(l, hWrote, lt); ok {
				after = append(after, edit.Lit("; "+name+"(&"), r.ed.Src(l), edit.Lit(", "+r.site(l)+")"))
			}
			continue
		}
		if name, ok := r.helperName(l, hStore, lt); ok {
			r.ed.Replace(l, edit.Lit("*"+name+"(&"), r.ed.Src(l), edit.Lit(", "+r.site(l)+")"))
		}
	}
	if len(after) > 0 {
		r.ed.Replace(s, append([]edit.Part{r.ed.Src(s)}, after...)...)
	}
}

// splitValue is the value a split assignment stores in one target: a
// temporary of the value's own type, or the text of a constant (or nil)
// right-hand side, which a temporary would give its default type.
type splitValue struct {
	temp bool
	part edit.Part
}

// splitValues returns, per target of the assignment s, how a split
// assignment gets the value it stores, or nil if s cannot be split: a
// comma-ok form (v, ok = m[k], x.(T), <-ch) whose ok target has a type
// other than bool (the untyped bool result converts to it, a bool
// temporary would not).
func (r *fileRW) splitValues(s *ast.AssignStmt) []splitValue {
	vals := make([]splitValue, len(s.Lhs))
	switch {
	case len(s.Lhs) == 2 && len(s.Rhs) == 1 && r.commaOk(s.Rhs[0]):
		if ok := s.Lhs[1]; !isBlank(ok) && !types.Identical(r.typeOf(ok), types.Typ[types.Bool]) {
			return nil
		}
		vals[0].temp, vals[1].temp = true, true
	case len(s.Rhs) == len(s.Lhs):
		for i, e := range s.Rhs {
			tv, ok := r.info.Types[e]
			if !ok {
				return nil
			}
			// A constant is stored as it is written: a temporary would
			// give an untyped one its default type, not the target's.
			vals[i] = splitValue{temp: tv.Value == nil && !tv.IsNil(), part: r.ed.Src(e)}
		}
	case len(s.Rhs) == 1:
		call, ok := unparen(s.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return nil
		}
		if tup, ok := r.typeOf(call).(*types.Tuple); !ok || tup.Len() != len(s.Lhs) {
			return nil
		}
		for i := range vals {
			vals[i].temp = true
		}
	default:
		return nil
	}
	return vals
}

// commaOk reports whether e, the single value of a two-target assignment,
// is a comma-ok expression: a map index, a type assertion or a receive.
func (r *fileRW) commaOk(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.IndexExpr:
		return isMap(r.typeOf(e.X))
	case *ast.TypeAssertExpr:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	}
	return false
}

// splitAssign rewrites the tuple assignment s as a block that evaluates the
// right-hand side into temporaries and then assigns the targets, left to
// right (see assignN). The targets are evaluated after the right-hand
// side, which the language allows: they make no calls (pureTargets).
func (r *fileRW) splitAssign(s *ast.AssignStmt, vals []splitValue) {
	var names []string
	var rhs, assigns []edit.Part
	temps, shared := false, false
	for i, l := range s.Lhs {
		val := vals[i]
		if val.temp {
			name := "_"
			if !isBlank(l) {
				name = r.temp("_xbv")
				val.part = edit.Lit(name)
				temps = true
			}
			names = append(names, name)
			if len(s.Rhs) > 1 {
				if len(rhs) > 0 {
					rhs = append(rhs, edit.Lit(", "))
				}
				rhs = append(rhs, r.ed.Src(s.Rhs[i]))
			}
		}
		if !isBlank(l) {
			a, reported := r.assignPart(l, val.part)
			shared = shared || reported
			assigns = append(append(assigns, edit.Lit("; ")), a...)
		}
	}
	if !shared {
		return // no store to report: the statement stays as it is
	}
	if len(s.Rhs) == 1 {
		rhs = []edit.Part{r.ed.Src(s.Rhs[0])}
	}
	out := []edit.Part{edit.Lit("{ ")}
	if len(names) > 0 {
		tok := " = "
		if temps {
			tok = " := "
		}
		out = append(append(out, edit.Lit(strings.Join(names, ", ")+tok)), rhs...)
	}
	out = append(append(out, assigns...), edit.Lit(" }"))
	r.ed.Replace(s, out...)
}

// pure reports whether evaluating e twice is the same as once: no calls
// (other than conversions and side-effect-free builtins), no receives.
func (r *fileRW) pure(e ast.Expr) bool {
	return !r.hasCall(e)
}

func (r *fileRW) anyCall(es []ast.Expr) bool {
	for _, e := range es {
		if r.hasCall(e) {
			return true
		}
	}
	return false
}

// pureTargets reports whether the targets of a tuple assignment can be
// evaluated again after it: pure, and none of them mentions a variable the
// assignment sets.
func (r *fileRW) pureTargets(lhs []ast.Expr) bool {
	set := map[types.Object]bool{}
	for _, l := range lhs {
		if id, ok := unparen(l).(*ast.Ident); ok {
			set[r.info.Uses[id]] = true
		}
	}
	for _, l := range lhs {
		if !r.pure(l) {
			return false
		}
		if _, ok := unparen(l).(*ast.Ident); ok {
			continue
		}
		mentions := false
		ast.Inspect(l, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && set[r.info.Uses[id]] {
				mentions = true
			}
			return !mentions
		})
		if mentions {
			return false
		}
	}
	return true
}

// hasCall reports whether evaluating e may call a function or block.
func (r *fileRW) hasCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		case *ast.CallExpr:
			if r.info.Types[n.Fun].IsType() {
				return true
			}
			if b, ok := r.info.Uses[calleeIdent(n.Fun)].(*types.Builtin); ok {
				switch b.Name() {
				case "len", "cap", "complex", "real", "imag", "min", "max", "new", "make", "append",
					"Sizeof", "Alignof", "Offsetof", "Add", "Slice", "SliceData", "String", "StringData":
					return true
				}
			}
			found = true
		}
		return true
	})
	return found
}

// calleeIdent returns the identifier naming a called function, if any.
func calleeIdent(fun ast.Expr) *ast.Ident {
	switch f := unparen(fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}

// call handles calls: conversions, builtins (allocations, channel and map
// operations) and ordinary calls.
func (r *fileRW) call(e *ast.CallExpr) {
	if r.info.Types[e.Fun].IsType() {
		r.typeExpr(e.Fun)
		for _, a := range e.Args {
			r.expr(a)
		}
		if r.u.gen.buffered && len(e.Args) == 1 {
			// string(b), [N]T(s): read the slice's elements in memory.
			_, fromSlice := under(r.typeOf(e.Args[0])).(*types.Slice)
			switch to := under(r.typeOf(e)).(type) {
			case *types.Array:
				if fromSlice {
					r.drain(lastMemoryArg(r.info, e)) // foreign.go
				}
			case *types.Basic:
				if fromSlice && to.Info()&types.IsString != 0 {
					r.drain(lastMemoryArg(r.info, e))
				}
			}
		}
		return
	}
	if b, ok := r.info.Uses[calleeIdent(e.Fun)].(*types.Builtin); ok {
		r.builtin(e, b.Name())
		return
	}
	r.expr(e.Fun)
	for _, a := range e.Args {
		r.expr(a)
	}
	if r.u.gen.buffered {
		r.drain(foreignDrain(r.info, r.u.rewritten, e)) // foreign.go
	}
}

func (r *fileRW) builtin(e *ast.CallExpr, name string) {
	argType := func(i int) types.Type {
		if i < len(e.Args) {
			return r.typeOf(e.Args[i])
		}
		return nil
	}
	rest := func(from int) {
		for _, a := range e.Args[from:] {
			r.expr(a)
		}
	}
	switch name {
	case "make":
		r.typeExpr(e.Args[0])
		rest(1)
		t := r.typeOf(e)
		switch u := under(t).(type) {
		case *types.Chan:
			r.makeChan(e, u)
		case *types.Slice:
			r.wrapCall(e, hSlice, t, u.Elem())
		case *types.Map:
			r.wrapCall(e, hNewMap, t, u.Key(), u.Elem())
		}
	case "new":
		if r.info.Types[e.Args[0]].IsType() {
			r.typeExpr(e.Args[0])
		} else {
			rest(0)
		}
		if pt, ok := r.typeOf(e).(*types.Pointer); ok {
			r.wrapCall(e, hNew, pt.Elem())
		}
	case "append":
		rest(0)
		if r.u.gen.buffered {
			r.drain(lastMemoryArg(r.info, e)) // append reads and writes elements in memory (foreign.go)
		}
		t := r.typeOf(e)
		if u, ok := under(t).(*types.Slice); ok {
			r.wrapCall(e, hSlice, t, u.Elem())
		}
	case "len":
		switch u := under(argType(0)).(type) {
		case *types.Chan:
			rest(0)
			h := hLen
			if u.Dir() == types.SendOnly {
				h = hLenSend
			}
			if n, ok := r.helperName(e, h, u.Elem()); ok {
				r.ed.Replace(e.Fun, edit.Lit(n))
			}
		case *types.Map:
			r.mapAccess(e.Args[0], hMapLoad)
		default:
			rest(0)
		}
	case "close":
		rest(0)
		if u, ok := under(argType(0)).(*types.Chan); ok {
			if n, ok := r.helperName(e, hClose, u.Elem()); ok {
				r.ed.Replace(e.Fun, edit.Lit(n))
			}
		}
	case "delete":
		r.mapAccess(e.Args[0], hMapStore)
		rest(1)
	case "clear":
		if isMap(argType(0)) {
			r.mapAccess(e.Args[0], hMapStore)
		} else {
			rest(0)
			if r.u.gen.buffered {
				r.drain(lastMemoryArg(r.info, e)) // foreign.go
			}
		}
	case "copy":
		rest(0)
		if r.u.gen.buffered {
			r.drain(lastMemoryArg(r.info, e)) // foreign.go
		}
	default:
		rest(0)
	}
}
