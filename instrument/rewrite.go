package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strconv"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// fileRW rewrites one file. The walk visits every statement and expression
// once, in a context (a statement list or not, a value that is read or a
// location whose address is taken), and records edits; render then
// produces the text. The walk of declarations, statements (loops among
// them) and expressions is here, memory accesses and calls are in
// rewrite_mem.go, goroutines and channels in rewrite_chan.go, the
// rendering in render.go; the decisions that need no file's state are
// plain functions (which names are replaced, rewrite_sync.go; which
// statements get a cold path, rewrite_cold.go; which calls drain the
// store buffers, foreign.go; what a Test function is, rewrite_test_funcs.go;
// racy.go).
type fileRW struct {
	u         *unit
	fset      *token.FileSet
	info      *types.Info
	file      *ast.File
	path      string          // original file name, for //line and positions
	examples  map[string]bool // the file's runnable examples (runnableExample), once asked
	ed        *edit.Editor
	goVersion string // the file's language version (go1.N), "" if unknown
	generics  bool   // the file's Go version has generics
	testFile  bool   // a _test.go file of a target package

	xb         string // the scheduler's name in this file
	usesXB     bool
	usesUnsafe bool
	sites      []int32  // lines of the access sites, for RegisterPositions
	siteExprs  []string // their source text, for RegisterExprs
	racyAt     []int32  // the sites of variables racy by design (racy.go)
	racyWhy    []string // and why, for RegisterRacy
	posVar     string
	shared     map[*types.Var]bool
	tmp        int
	keepT      bool // inside the signature of a Test function
	errs       []error
}

func newFileRW(u *unit, f *ast.File, path string, src []byte, fileIndex int) *fileRW {
	info := u.pkg.TypesInfo
	tf := u.pkg.Fset.File(f.Pos())
	r := &fileRW{
		u:        u,
		fset:     u.pkg.Fset,
		info:     info,
		file:     f,
		path:     path,
		ed:       edit.New(tf, src),
		testFile: strings.HasSuffix(path, "_test.go"),
		posVar:   "_xbP" + strconv.Itoa(fileIndex),
	}
	r.goVersion = info.FileVersions[f]
	if r.goVersion == "" {
		// go/packages gives the type checker no version for a module
		// without a go line: the go command compiles it as go 1.16.
		if v := build.ModuleGo(u.pkg.Module); v != "" {
			r.goVersion = "go" + v
		}
	}
	r.generics = r.goVersion == "" || version.Compare(r.goVersion, "go1.18") >= 0
	r.xb = "xb"
	if u.pkg.Types.Scope().Lookup("xb") != nil || identUsed(f, "xb") {
		r.xb = "_xbs"
	}
	r.shared = sharedLocals(info, f)
	return r
}

func identUsed(f *ast.File, name string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

func (r *fileRW) errorf(n ast.Node, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s", r.fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
}

// X returns the scheduler-qualified name.
func (r *fileRW) X(name string) string {
	r.usesXB = true
	return r.xb + "." + name
}

func (r *fileRW) unsafeName() string {
	r.usesUnsafe = true
	return "_xbunsafe"
}

// site registers an access site and returns the expression for its Pos.
func (r *fileRW) site(n ast.Node) string {
	r.usesXB = true
	k := len(r.sites)
	r.sites = append(r.sites, int32(r.fset.Position(n.Pos()).Line))
	text := ""
	if e, ok := n.(ast.Expr); ok {
		if text = types.ExprString(e); len(text) > 60 {
			text = text[:57] + "..."
		}
	}
	r.siteExprs = append(r.siteExprs, text)
	if e, ok := n.(ast.Expr); ok {
		if why, racy := racyReason(r.fset, r.info, e); racy {
			r.racyAt, r.racyWhy = append(r.racyAt, int32(k)), append(r.racyWhy, why)
		}
	}
	return r.posVar + "+" + strconv.Itoa(k)
}

func (r *fileRW) temp(prefix string) string {
	r.tmp++
	return prefix + strconv.Itoa(r.tmp)
}

// helperName returns what the file calls to use h instantiated with targs:
// the generic name itself when the file has generics, else a wrapper.
func (r *fileRW) helperName(n ast.Node, h *helper, targs ...types.Type) (string, bool) {
	if r.generics {
		if rest, ok := strings.CutPrefix(h.call, "xb."); ok {
			return r.X(rest), true
		}
		return h.call, true
	}
	name, err := r.u.gen.wrapper(h, targs)
	if err != nil {
		if what := h.what(); what != "" {
			r.errorf(n, "cannot instrument this %s in a file whose Go version (%s) predates generics: %v",
				what, r.goVersion, err)
		} else {
			// A memory access or an allocation left unreported only
			// makes the exploration coarser. (A dependency's are counted:
			// one line for the package.)
			if r.u.rp != nil && r.u.rp.Dep {
				r.u.unreported++
			} else {
				r.u.logf("instrument: %s: not reporting a memory access: %v", r.fset.Position(n.Pos()), err)
			}
		}
		return "", false
	}
	return name, true
}

// what names the operation h rewrites, if leaving it out would break the
// program; memory reports can be left out.
func (h *helper) what() string {
	switch h {
	case hSend, hRecv, hRecv2, hClose, hLen, hLenSend, hMakeChan, hChanV, hRecvSlot, hSendCase, hRecvCase:
		return "channel operation"
	case hMapIter:
		return "range over a map"
	}
	return ""
}

func (r *fileRW) typeOf(e ast.Expr) types.Type { return r.info.TypeOf(e) }

// run walks the file.
func (r *fileRW) run() {
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			r.genDecl(d, nil, true)
		case *ast.FuncDecl:
			r.funcDecl(d)
		}
	}
}

func (r *fileRW) funcDecl(fd *ast.FuncDecl) {
	if r.testFile && r.u.target != nil && fd.Recv == nil {
		switch testKind(fd) {
		case kindDrop:
			// Benchmarks, fuzz targets and examples never run under xbtest,
			// and their helpers' parameters may have become xb.TB.
			if r.runnableExample(fd.Name.Name) {
				r.u.examples++
			}
			r.ed.Replace(fd, edit.Lit(""))
			return
		case kindTest:
			r.testFunc(fd)
			return
		}
	}
	if fd.Recv != nil {
		r.fieldList(fd.Recv)
	}
	r.funcType(fd.Type)
	if fd.Body != nil {
		r.funcBody(fd.Type, fd.Body)
	}
}

// testFunc rewrites a Test function (rewrite_test_funcs.go): its body runs
// under the scheduler, once per schedule.
func (r *fileRW) testFunc(fd *ast.FuncDecl) {
	r.u.tests = append(r.u.tests, fd.Name.Name)
	param := fd.Type.Params.List[0]
	outer, inner := "_xbt", "t"
	switch {
	case len(param.Names) == 0:
		r.ed.Insert(param.Type.Pos(), outer+" ")
		inner = "_"
	case param.Names[0].Name == "_":
		r.ed.Replace(param.Names[0], edit.Lit(outer))
		inner = "_"
	default:
		outer = param.Names[0].Name
		inner = outer
	}
	// The signature keeps *testing.T: go test calls the function.
	r.keepT = true
	r.funcType(fd.Type)
	r.keepT = false
	r.ed.Insert(fd.Body.Lbrace+1, " "+r.X("RunTest")+"("+outer+", func("+inner+" *"+r.X("T")+") {")
	r.funcBody(fd.Type, fd.Body)
	r.ed.Insert(fd.Body.Rbrace, "})")
}

// funcBody walks a function body; shared parameters and results are
// registered where the body starts.
func (r *fileRW) funcBody(ft *ast.FuncType, body *ast.BlockStmt) {
	var allocs []string
	for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				if a := r.allocText(n); a != "" {
					allocs = append(allocs, a)
				}
			}
		}
	}
	if len(allocs) > 0 {
		r.ed.Insert(body.Lbrace+1, " "+strings.Join(allocs, "; ")+";")
	}
	r.stmtList(body.List)
}

// allocText registers a shared local variable declared by id.
func (r *fileRW) allocText(id *ast.Ident) string {
	v, ok := r.info.Defs[id].(*types.Var)
	if !ok || id.Name == "_" || !r.shared[v] {
		return ""
	}
	u := r.unsafeName()
	return fmt.Sprintf("%s(%s.Pointer(&%s), %s.Sizeof(%s))", r.X("Alloc"), u, id.Name, u, id.Name)
}

func (r *fileRW) funcType(ft *ast.FuncType) {
	r.fieldList(ft.TypeParams)
	r.fieldList(ft.Params)
	r.fieldList(ft.Results)
}

func (r *fileRW) fieldList(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		r.typeExpr(f.Type)
	}
}

// genDecl handles const, type and var declarations; stmt is the enclosing
// DeclStmt of a local declaration.
func (r *fileRW) genDecl(d *ast.GenDecl, stmt *ast.DeclStmt, top bool) {
	var allocs []string
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			r.fieldList(s.TypeParams)
			r.typeExpr(s.Type)
		case *ast.ValueSpec:
			if d.Tok == token.CONST {
				continue
			}
			r.typeExpr(s.Type)
			if len(s.Names) == 2 && len(s.Values) == 1 {
				if u := recvExpr(s.Values[0]); u != nil {
					r.recv(u, true)
					goto names
				}
			}
			for _, v := range s.Values {
				r.expr(v)
			}
		names:
			for _, n := range s.Names {
				if top {
					r.registerGlobal(n)
				} else if a := r.allocText(n); a != "" {
					allocs = append(allocs, a)
				}
			}
		}
	}
	if len(allocs) > 0 && stmt != nil {
		r.after(stmt, allocs...)
	}
}

func (r *fileRW) registerGlobal(n *ast.Ident) {
	if n.Name == "_" {
		return
	}
	if _, ok := r.info.Defs[n].(*types.Var); !ok {
		return
	}
	r.u.gen.global(n.Name, r.u.pkg.Types.Name()+"."+n.Name)
}

// after appends statements after s, which must be in a statement list.
func (r *fileRW) after(s ast.Stmt, texts ...string) {
	r.ed.Replace(s, r.ed.Src(s), edit.Lit("; "+strings.Join(texts, "; ")))
}

func (r *fileRW) stmtList(list []ast.Stmt) {
	for _, s := range list {
		r.stmt(s, true)
	}
}

// stmt walks a statement; inList says whether statements may be added
// after it.
func (r *fileRW) stmt(s ast.Stmt, inList bool) {
	switch s := s.(type) {
	case nil:
	case *ast.BlockStmt:
		r.stmtList(s.List)
	case *ast.ExprStmt:
		r.expr(s.X)
	case *ast.SendStmt:
		r.send(s)
	case *ast.IncDecStmt:
		n := r.ed.Len()
		r.incDec(s, inList)
		r.coldPath(s, n, inList)
	case *ast.AssignStmt:
		n := r.ed.Len()
		r.assign(s, inList)
		if s.Tok != token.DEFINE {
			r.coldPath(s, n, inList)
		}
	case *ast.GoStmt:
		r.goStmt(s)
	case *ast.DeferStmt:
		r.expr(s.Call)
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			r.expr(e)
		}
	case *ast.BranchStmt, *ast.EmptyStmt, *ast.BadStmt:
	case *ast.LabeledStmt:
		r.stmt(s.Stmt, inList)
	case *ast.DeclStmt:
		if d, ok := s.Decl.(*ast.GenDecl); ok {
			r.genDecl(d, s, false)
		}
	case *ast.IfStmt:
		r.stmt(s.Init, false)
		r.expr(s.Cond)
		r.stmtList(s.Body.List)
		r.stmt(s.Else, false)
	case *ast.SwitchStmt:
		r.stmt(s.Init, false)
		if s.Tag != nil {
			r.expr(s.Tag)
		}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				r.expr(e)
			}
			r.stmtList(cc.Body)
		}
	case *ast.TypeSwitchStmt:
		r.stmt(s.Init, false)
		switch a := s.Assign.(type) {
		case *ast.AssignStmt:
			r.expr(a.Rhs[0])
		case *ast.ExprStmt:
			r.expr(a.X)
		}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				r.typeExpr(e)
			}
			r.stmtList(cc.Body)
		}
	case *ast.SelectStmt:
		r.selectStmt(s)
	case *ast.ForStmt:
		r.forStmt(s)
	case *ast.RangeStmt:
		r.rangeStmt(s)
	default:
		r.errorf(s, "unexpected statement %T", s)
	}
}

// coldPath gives s, a statement of a list whose rewrite made the edits
// from the n-th on, its cold path, if it may have one (rewrite_cold.go
// says why).
func (r *fileRW) coldPath(s ast.Stmt, n int, inList bool) {
	if !inList || r.u.gen.buffered || r.ed.Len() == n {
		return
	}
	if r.fset.Position(s.Pos()).Line != r.fset.Position(s.End()).Line || !callFree(r.info, r.u.pkg.Types, s) {
		return
	}
	r.ed.Replace(s, edit.Lit(r.X("Cold")+"() { "+r.ed.Text(s)+" } else { "), r.ed.Src(s), edit.Lit(" }"))
	r.ed.Insert(s.Pos(), "if ")
}

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
	if !r.storeTarget(l) {
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

// expr walks an expression whose value is read. Expressions used as
// locations (assigned, addressed) go through loc instead.
func (r *fileRW) expr(e ast.Expr) {
	if e == nil {
		return
	}
	if tv, ok := r.info.Types[e]; ok {
		if tv.Value != nil {
			return // a constant: nothing is evaluated at run time
		}
		if tv.IsType() {
			r.typeExpr(e)
			return
		}
	}
	switch e := e.(type) {
	case *ast.Ident:
		if r.replaceName(e) {
			return
		}
		r.access(e)
	case *ast.BasicLit, *ast.BadExpr:
	case *ast.CompositeLit:
		r.compositeLit(e)
	case *ast.FuncLit:
		r.funcType(e.Type)
		r.funcBody(e.Type, e.Body)
	case *ast.ParenExpr:
		r.expr(e.X)
	case *ast.SelectorExpr:
		r.selector(e)
	case *ast.IndexExpr:
		if isInstance(r.info, e.X) {
			r.expr(e.X)
			r.typeExpr(e.Index)
			return
		}
		if _, ok := under(r.typeOf(e.X)).(*types.Map); ok {
			r.expr(e.Index)
			r.mapAccess(e.X, hMapLoad)
			return
		}
		r.access(e)
	case *ast.IndexListExpr:
		r.expr(e.X)
		for _, i := range e.Indices {
			r.typeExpr(i)
		}
	case *ast.SliceExpr:
		if _, ok := under(r.typeOf(e.X)).(*types.Array); ok {
			r.loc(e.X) // slicing an array takes its address
		} else {
			r.expr(e.X)
		}
		r.expr(e.Low)
		r.expr(e.High)
		r.expr(e.Max)
	case *ast.TypeAssertExpr:
		r.expr(e.X)
		r.typeExpr(e.Type)
	case *ast.CallExpr:
		r.call(e)
	case *ast.StarExpr:
		r.access(e)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ARROW:
			r.recv(e, false)
		case token.AND:
			r.addrOf(e)
		default:
			r.expr(e.X)
		}
	case *ast.BinaryExpr:
		r.expr(e.X)
		r.expr(e.Y)
	case *ast.KeyValueExpr:
		r.expr(e.Key)
		r.expr(e.Value)
	default:
		r.typeExpr(e)
	}
}

// isInstance reports whether x[...] instantiates a generic function or
// type rather than indexing.
func isInstance(info *types.Info, x ast.Expr) bool {
	tv, ok := info.Types[x]
	if !ok {
		return false
	}
	if tv.IsType() {
		return true
	}
	if sig, ok := tv.Type.(*types.Signature); ok && sig.TypeParams() != nil {
		return true
	}
	return false
}

func (r *fileRW) selector(e *ast.SelectorExpr) {
	if r.replaceName(e) {
		return
	}
	sel := r.info.Selections[e]
	if sel == nil {
		// A qualified identifier: a variable of another rewritten package
		// is a global like any other.
		r.access(e)
		return
	}
	switch sel.Kind() {
	case types.FieldVal:
		r.access(e)
	case types.MethodVal:
		if ctl, path, addr := clockRecv(r.typeOf(e.X), sel); ctl != "" {
			// t.Stop() becomes xb.TimerOf(t).Stop(), its receiver visited
			// first.
			r.expr(e.X)
			switch {
			case path == "" && !addr:
				r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"("), r.ed.Src(e.X), edit.Lit(")"))
			case addr:
				r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"(&("), r.ed.Src(e.X), edit.Lit(path+"))"))
			default:
				r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"(("), r.ed.Src(e.X), edit.Lit(")"+path+")"))
			}
			return
		}
		r.methodRecv(e, sel)
	case types.MethodExpr:
		if f := clockMethodFunc(sel); f != "" {
			r.ed.Replace(e, edit.Lit(r.X(f)))
			return
		}
		r.typeExpr(e.X)
	}
}

// replaceName replaces a name of the standard library that the scheduler
// has a drop-in for (rewrite_sync.go): a qualified identifier such as
// sync.Mutex, or a name of a dot-imported package.
func (r *fileRW) replaceName(e ast.Expr) bool {
	obj := importedObj(r.info, r.u.pkg.Types, e)
	if observesCollection(obj) {
		r.u.gen.collects = true
	}
	name, rest := replacement(obj, r.keepT)
	if name == "" {
		return false
	}
	r.ed.Replace(e, edit.Lit(r.X(name)+rest))
	return true
}

func (r *fileRW) compositeLit(e *ast.CompositeLit) {
	r.typeExpr(e.Type)
	_, isStruct := under(r.typeOf(e)).(*types.Struct)
	for _, el := range e.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if !isStruct {
				r.expr(kv.Key)
			}
			r.expr(kv.Value)
			continue
		}
		r.expr(el)
	}
}

// typeExpr rewrites the sync, atomic and testing types a type expression
// mentions.
func (r *fileRW) typeExpr(e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.Ident, *ast.SelectorExpr:
		r.replaceName(e)
	case *ast.StarExpr:
		r.typeExpr(e.X)
	case *ast.ParenExpr:
		r.typeExpr(e.X)
	case *ast.ArrayType:
		r.typeExpr(e.Elt)
	case *ast.MapType:
		r.typeExpr(e.Key)
		r.typeExpr(e.Value)
	case *ast.ChanType:
		r.typeExpr(e.Value)
	case *ast.FuncType:
		r.funcType(e)
	case *ast.StructType:
		r.fieldList(e.Fields)
	case *ast.InterfaceType:
		r.fieldList(e.Methods)
	case *ast.IndexExpr:
		r.typeExpr(e.X)
		r.typeExpr(e.Index)
	case *ast.IndexListExpr:
		r.typeExpr(e.X)
		for _, i := range e.Indices {
			r.typeExpr(i)
		}
	case *ast.Ellipsis:
		r.typeExpr(e.Elt)
	case *ast.UnaryExpr:
		r.typeExpr(e.X)
	case *ast.BinaryExpr:
		r.typeExpr(e.X)
		r.typeExpr(e.Y)
	}
}

func unparen(e ast.Expr) ast.Expr { return ast.Unparen(e) }
