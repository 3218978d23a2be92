package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// Goroutines and channels: a go statement starts its goroutine through the
// scheduler (goStmt), and every operation on a channel becomes a call of
// the scheduler, which owns the state of the channels made by rewritten
// code.

// recvExpr returns e as a receive <-ch, or nil.
func recvExpr(e ast.Expr) *ast.UnaryExpr {
	if u, ok := unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u
	}
	return nil
}

// chanElem returns the element type of a channel expression.
func (r *fileRW) chanElem(ch ast.Expr) types.Type {
	if c, ok := under(r.typeOf(ch)).(*types.Chan); ok {
		return c.Elem()
	}
	return nil
}

// recv rewrites <-ch into xb.Recv(ch), or xb.Recv2(ch) where the receive
// reports ok.
func (r *fileRW) recv(u *ast.UnaryExpr, withOK bool) {
	r.expr(u.X)
	h := hRecv
	if withOK {
		h = hRecv2
	}
	name, ok := r.helperName(u, h, r.chanElem(u.X))
	if !ok {
		return
	}
	r.ed.Replace(u, edit.Lit(name+"("), r.ed.Src(u.X), edit.Lit(")"))
}

// send rewrites ch <- v into xb.Send(ch, v).
func (r *fileRW) send(s *ast.SendStmt) {
	r.expr(s.Chan)
	r.expr(s.Value)
	elem := r.chanElem(s.Chan)
	name, ok := r.helperName(s, hSend, elem)
	if !ok {
		return
	}
	if r.needsConv(elem, s.Value) {
		r.ed.Replace(s, edit.Lit(name+"(_xbChanOf("), r.ed.Src(s.Chan), edit.Lit(").val("), r.ed.Src(s.Value), edit.Lit("))"))
		return
	}
	r.ed.Replace(s, edit.Lit(name+"("), r.ed.Src(s.Chan), edit.Lit(", "), r.ed.Src(s.Value), edit.Lit(")"))
}

// needsConv reports whether passing v as a T of a generic function needs
// the conversion an assignment does: type inference does not convert a
// value of another type (an interface's implementation, a named type of
// the same underlying type). Files without generics call wrappers with
// concrete parameter types, which convert.
func (r *fileRW) needsConv(t types.Type, v ast.Expr) bool {
	if !r.generics || t == nil {
		return false
	}
	vt := r.typeOf(v)
	return vt != nil && !isUntyped(vt) && !types.Identical(t, vt)
}

// makeChan rewrites make(chan T, n).
func (r *fileRW) makeChan(e *ast.CallExpr, ct *types.Chan) {
	size := []edit.Part{edit.Lit("0")}
	if len(e.Args) > 1 {
		size = []edit.Part{r.ed.Src(e.Args[1])}
		if t, ok := r.typeOf(e.Args[1]).(*types.Basic); !ok || t.Kind() != types.Int && t.Kind() != types.UntypedInt {
			// make takes a size of any integer type, MakeChan an int.
			size = []edit.Part{edit.Lit("int("), r.ed.Src(e.Args[1]), edit.Lit(")")}
		}
	}
	call := func(prefix ...edit.Part) []edit.Part {
		return append(append(prefix, size...), edit.Lit(")"))
	}
	if !r.generics {
		if ct.Dir() != types.SendRecv {
			r.errorf(e, "cannot instrument make of a directional channel type in a file whose Go version predates generics")
			return
		}
		name, ok := r.helperName(e, hMakeChan, r.typeOf(e), ct.Elem())
		if ok {
			r.ed.Replace(e, call(edit.Lit(name+"("))...)
		}
		return
	}
	typ := e.Args[0]
	if lt, ok := unparen(typ).(*ast.ChanType); ok {
		mk := call(edit.Lit(r.X("MakeChan")+"["), r.ed.Src(lt.Value), edit.Lit("]("))
		if lt.Dir == ast.SEND|ast.RECV {
			r.ed.Replace(e, mk...)
		} else {
			r.ed.Replace(e, append(append([]edit.Part{edit.Lit("("), r.ed.Src(typ), edit.Lit(")(")}, mk...), edit.Lit(")"))...)
		}
		return
	}
	if ct.Dir() != types.SendRecv {
		r.errorf(e, "cannot instrument make of a named directional channel type")
		return
	}
	r.ed.Replace(e, call(edit.Lit("_xbMakeChan["), r.ed.Src(typ), edit.Lit("]("))...)
}

// selectStmt rewrites
//
//	L: select {
//	case v, ok := <-a:
//		...
//	case b <- x:
//		...
//	default:
//		...
//	}
//
// into
//
//	L: switch _xbr1, _xbc2, _xbv2, _xbs3 := _xbRecvSlot(a), b, x, new(_xbSelRes); _xbs3.set(xb.Select(true, xb.RecvCase(_xbr1.c, &_xbr1.v), xb.SendCase(_xbc2, _xbv2))) {
//	case 0: v, ok := _xbr1.v, _xbs3.ok
//		...
//	case 1:
//		...
//	default:
//		...
//	}
//
// The channels and values are evaluated once, in source order, before the
// choice, as Go does; the case bodies stay where they were, so break, labels
// and goto keep working. Without a default the last case becomes the
// default, so that the switch is a terminating statement exactly when the
// select was.
func (r *fileRW) selectStmt(s *ast.SelectStmt) {
	clauses := s.Body.List
	if len(clauses) == 0 {
		r.ed.Replace(s, edit.Lit(r.X("Select")+"(false); panic(\"unreachable\")"))
		return
	}
	res := r.temp("_xbs")
	var (
		names, inits []edit.Part
		cases        []edit.Part
		headers      = make([][]edit.Part, len(clauses))
		hasDefault   = false
		k            = 0
		lastComm     = -1
	)
	addInit := func(name string, val ...edit.Part) {
		if len(names) > 0 {
			names = append(names, edit.Lit(", "))
			inits = append(inits, edit.Lit(", "))
		}
		names = append(names, edit.Lit(name))
		// Parenthesized: a composite literal in a switch header would
		// otherwise open the switch's body.
		inits = append(inits, edit.Lit("("))
		inits = append(inits, val...)
		inits = append(inits, edit.Lit(")"))
	}
	addCase := func(c ...edit.Part) {
		if len(cases) > 0 {
			cases = append(cases, edit.Lit(", "))
		}
		cases = append(cases, c...)
	}
	for i, c := range clauses {
		cc := c.(*ast.CommClause)
		if cc.Comm != nil {
			lastComm = i
		}
	}
	for i, c := range clauses {
		cc := c.(*ast.CommClause)
		label := "case " + strconv.Itoa(k) + ":"
		if cc.Comm == nil || (i == lastComm && !hasDefaultClause(clauses)) {
			label = "default:"
		}
		switch comm := cc.Comm.(type) {
		case nil:
			hasDefault = true
			headers[i] = []edit.Part{edit.Lit(label)}
			r.stmtList(cc.Body)
			continue
		case *ast.SendStmt:
			r.expr(comm.Chan)
			r.expr(comm.Value)
			elem := r.chanElem(comm.Chan)
			cn := r.temp("_xbc")
			addInit(cn, r.ed.Src(comm.Chan))
			val := []edit.Part{r.ed.Src(comm.Value)}
			if tv := r.info.Types[comm.Value]; tv.Value == nil && !tv.IsNil() {
				// A constant is converted by inference and needs no
				// temporary; anything else is evaluated here, in order.
				vn := r.temp("_xbv")
				addInit(vn, r.ed.Src(comm.Value))
				val = []edit.Part{edit.Lit(vn)}
			}
			name, ok := r.helperName(comm, hSendCase, elem)
			if !ok {
				return
			}
			if r.needsConv(elem, comm.Value) {
				addCase(append(append([]edit.Part{edit.Lit(name + "(_xbChanOf(" + cn + ").val(")}, val...), edit.Lit("))"))...)
			} else {
				addCase(append(append([]edit.Part{edit.Lit(name + "(" + cn + ", ")}, val...), edit.Lit(")"))...)
			}
			headers[i] = []edit.Part{edit.Lit(label)}
		default:
			var u *ast.UnaryExpr
			var as *ast.AssignStmt
			switch comm := comm.(type) {
			case *ast.ExprStmt:
				u = recvExpr(comm.X)
			case *ast.AssignStmt:
				as = comm
				u = recvExpr(comm.Rhs[0])
			}
			if u == nil {
				r.errorf(cc, "unexpected select case")
				return
			}
			r.expr(u.X)
			elem := r.chanElem(u.X)
			slot, ok1 := r.helperName(u, hRecvSlot, elem)
			rc, ok2 := r.helperName(u, hRecvCase, elem)
			if !ok1 || !ok2 {
				return
			}
			sn := r.temp("_xbr")
			addInit(sn, edit.Lit(slot+"("), r.ed.Src(u.X), edit.Lit(")"))
			addCase(edit.Lit(fmt.Sprintf("%s(%s.c, &%s.v)", rc, sn, sn)))
			h := []edit.Part{edit.Lit(label + " ")}
			if as != nil {
				vals := []string{sn + ".v", res + ".ok"}
				if as.Tok == token.DEFINE {
					for j, l := range as.Lhs {
						if j > 0 {
							h = append(h, edit.Lit(", "))
						}
						h = append(h, r.ed.Src(l))
					}
					h = append(h, edit.Lit(" := "+strings.Join(vals[:len(as.Lhs)], ", ")+";"))
					for _, l := range as.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							if a := r.allocText(id); a != "" {
								h = append(h, edit.Lit(" "+a+";"))
							}
						}
					}
				} else {
					for j, l := range as.Lhs {
						h = append(h, r.assignTo(l, vals[j])...)
						h = append(h, edit.Lit(";"))
					}
				}
			}
			headers[i] = h
		}
		r.stmtList(cc.Body)
		k++
	}
	hasDef := "false"
	if hasDefault {
		hasDef = "true"
	}
	addInit(res, edit.Lit("new(_xbSelRes)"))
	out := []edit.Part{edit.Lit("switch ")}
	out = append(out, names...)
	out = append(out, edit.Lit(" := "))
	out = append(out, inits...)
	out = append(out, edit.Lit("; "+res+".set("+r.X("Select")+"("+hasDef))
	if len(cases) > 0 {
		out = append(out, edit.Lit(", "))
		out = append(out, cases...)
	}
	out = append(out, edit.Lit(")) {"))
	prev := s.Body.Lbrace + 1
	for i, c := range clauses {
		cc := c.(*ast.CommClause)
		out = append(out, r.ed.SrcRange(prev, cc.Case))
		out = append(out, headers[i]...)
		out = append(out, r.ed.SrcRange(cc.Colon+1, cc.End()))
		prev = cc.End()
	}
	out = append(out, r.ed.SrcRange(prev, s.Body.Rbrace), edit.Lit("}"))
	r.ed.Replace(s, out...)
}

func hasDefaultClause(clauses []ast.Stmt) bool {
	for _, c := range clauses {
		if c.(*ast.CommClause).Comm == nil {
			return true
		}
	}
	return false
}

// assignTo returns the text of the assignment l = val (val a temporary),
// with the write reported if l is shared. l's operands are visited.
func (r *fileRW) assignTo(l ast.Expr, val string) []edit.Part {
	a, _ := r.assignPart(l, edit.Lit(val))
	return a
}

// assignPart is assignTo with the value's text given as a part. It also
// reports whether the store is reported to the scheduler (l is a shared
// location or a map entry).
func (r *fileRW) assignPart(l ast.Expr, val edit.Part) ([]edit.Part, bool) {
	if isBlank(l) {
		return []edit.Part{edit.Lit("_ = "), val}, false
	}
	if ix := r.mapIndex(l); ix != nil {
		r.expr(ix.Index)
		r.mapAccess(ix.X, hMapStore)
		return []edit.Part{r.ed.Src(l), edit.Lit(" = "), val}, true
	}
	if r.loc(l) && r.info.Types[l].Addressable() {
		if a := r.assignment(l, r.ed.Src(l), []edit.Part{val}); a != nil {
			return a, true
		}
	}
	return []edit.Part{r.ed.Src(l), edit.Lit(" = "), val}, false
}

// rangeChan rewrites a loop over a channel into a loop that receives at the
// start of each iteration:
//
//	for v := range ch {
//
// becomes
//
//	for _xbc1, v := _xbChanV(ch); ; { _xbv3, _xbok2 := xb.Recv2(_xbc1); if !_xbok2 { break }; v = _xbv3;
//
// The loop variable is declared by the for clause, so it is one variable
// for the whole loop or one per iteration exactly as the range variable was
// under the file's Go version; continue goes to the next receive.
func (r *fileRW) rangeChan(s *ast.RangeStmt, ct *types.Chan) {
	r.expr(s.X)
	elem := ct.Elem()
	recv2, ok := r.helperName(s, hRecv2, elem)
	if !ok {
		return
	}
	c, okv := r.temp("_xbc"), r.temp("_xbok")
	key := s.Key
	if key != nil && isBlank(key) {
		key = nil
	}
	var head []edit.Part
	switch {
	case key == nil:
		head = []edit.Part{edit.Lit(fmt.Sprintf("for %s := (", c)), r.ed.Src(s.X),
			edit.Lit(fmt.Sprintf("); ; { if _, %s := %s(%s); !%s { break };", okv, recv2, c, okv))}
	case s.Tok == token.DEFINE:
		chanV, ok := r.helperName(s, hChanV, elem)
		if !ok {
			return
		}
		// The variable is assigned only when a value arrives: after the
		// loop, a variable shared by all iterations keeps the last value.
		v := r.temp("_xbv")
		head = []edit.Part{edit.Lit(fmt.Sprintf("for %s, ", c)), r.ed.Src(key), edit.Lit(" := " + chanV + "("), r.ed.Src(s.X),
			edit.Lit(fmt.Sprintf("); ; { %s, %s := %s(%s); if !%s { break }; ", v, okv, recv2, c, okv)), r.ed.Src(key),
			edit.Lit(" = " + v + ";")}
		if a := r.allocText(key.(*ast.Ident)); a != "" {
			head = append(head, edit.Lit(" "+a+";"))
		}
		for _, w := range r.rangeVarWrites(s) {
			head = append(head, edit.Lit(" "+w+";"))
		}
	default:
		v := r.temp("_xbv")
		head = []edit.Part{edit.Lit(fmt.Sprintf("for %s := (", c)), r.ed.Src(s.X),
			edit.Lit(fmt.Sprintf("); ; { %s, %s := %s(%s); if !%s { break }; ", v, okv, recv2, c, okv))}
		head = append(head, r.assignTo(key, v)...)
		head = append(head, edit.Lit(";"))
	}
	r.ed.ReplaceRange(s.For, s.Body.Lbrace+1, head...)
}

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
