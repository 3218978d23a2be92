package load

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Goroutines started while the program initializes. A package whose
// initialization starts a goroutine (ants makes its default pool in init,
// and the pool starts goroutines that purge idle workers) starts it before
// any test runs, outside the scheduler's control: if the code that goroutine
// runs is rewritten, its calls into the scheduler come from a goroutine
// xbtest does not control, and the test is stopped. So the packages whose
// code such a goroutine may run are left alone, as before dependencies were
// rewritten.
//
// Which ones is found from the syntax the scan records (funcSummary), with
// names resolved the way the syntax allows: f() is the package's function
// f, p.F() the function F of the imported package p, x.M() any method M of
// the package or of a package it imports. That follows interface calls to
// the methods that may implement them nearby and misses those further away.
// Initialization runs init functions and package-level initializers and
// what they call; a goroutine they start runs what its go statement refers
// to, and whatever that refers to (a function value it is handed may be
// called).

// funcSummary is what a function's body refers to.
type funcSummary struct {
	name   string   // "F", "T.M" for a method; "init" for init functions and package-level initializers
	refs   []string // "F" (an identifier), "X.F" (a selector on an identifier, maybe an imported package), ".M" (a selector on anything else)
	calls  []string // the refs that are called
	goRefs []string // the refs inside go statements: the code of the goroutines it starts
	file   *fileSummary
}

// fileSummary is the funcSummaries of a file, and its imports.
type fileSummary struct {
	funcs   []funcSummary
	imports [][2]string // name ("" for the package's own) and path
}

// summarize records the functions of f and what each refers to.
func summarize(f *ast.File) *fileSummary {
	s := &fileSummary{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		s.imports = append(s.imports, [2]string{name, path})
	}
	refOf := func(e ast.Expr) string {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.IndexListExpr:
				e = x.X
			case *ast.Ident:
				return x.Name
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					return id.Name + "." + x.Sel.Name
				}
				return "." + x.Sel.Name
			default:
				return ""
			}
		}
	}
	refsOf := func(n ast.Node, fs *funcSummary) {
		var walk func(n ast.Node, inGo bool)
		walk = func(n ast.Node, inGo bool) {
			ast.Inspect(n, func(n ast.Node) bool {
				add := func(ref string) {
					fs.refs = append(fs.refs, ref)
					if inGo {
						fs.goRefs = append(fs.goRefs, ref)
					}
				}
				switch n := n.(type) {
				case *ast.CallExpr:
					if r := refOf(n.Fun); r != "" {
						fs.calls = append(fs.calls, r)
					}
				case *ast.GoStmt:
					if !inGo {
						walk(n.Call, true)
						return false
					}
				case *ast.SelectorExpr:
					add(refOf(n))
					if _, ok := n.X.(*ast.Ident); !ok {
						walk(n.X, inGo)
					}
					return false // not n.Sel: a method is not the function of that name
				case *ast.Ident:
					add(n.Name)
				}
				return true
			})
		}
		walk(n, false)
	}
	initFn := funcSummary{name: "init"}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			if d.Recv == nil && d.Name.Name == "init" {
				refsOf(d.Body, &initFn)
				continue
			}
			fs := funcSummary{name: d.Name.Name}
			if d.Recv != nil && len(d.Recv.List) == 1 {
				fs.name = recvTypeName(d.Recv.List[0].Type) + "." + d.Name.Name
			}
			refsOf(d.Body, &fs)
			s.funcs = append(s.funcs, fs)
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					refsOf(v, &initFn)
				}
			}
		}
	}
	if len(initFn.calls)+len(initFn.goRefs) > 0 {
		s.funcs = append(s.funcs, initFn)
	}
	for i := range s.funcs {
		s.funcs[i].file = s
	}
	return s
}

// recvTypeName is the name of a receiver's base type: T of *T, T[K].
func recvTypeName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// initGoroutines returns the packages (of those loaded, outside the
// standard library) whose code a goroutine that the program's
// initialization starts may run.
func initGoroutines(roots []*packages.Package, li *info) map[string]bool {
	type fn struct {
		pkg string
		sum *funcSummary
	}
	funcs := map[string]map[string][]*funcSummary{} // package -> name -> functions ("init" may be many)
	methods := map[string]map[string][]fn{}         // package -> method name -> methods
	imports := map[string][]string{}                // package -> the packages it imports
	names := map[string]string{}                    // import path -> package name
	li.mu.Lock()
	packages.Visit(roots, nil, func(p *packages.Package) {
		names[p.PkgPath] = p.Name
		if p.Module == nil || p.Name == "main" && strings.HasSuffix(p.ID, ".test") {
			return // the standard library; the generated main package of a test
		}
		path := p.PkgPath
		if funcs[path] == nil {
			funcs[path], methods[path] = map[string][]*funcSummary{}, map[string][]fn{}
		}
		for imp := range p.Imports {
			if !slices.Contains(imports[path], imp) {
				imports[path] = append(imports[path], imp)
			}
		}
		for _, name := range p.CompiledGoFiles {
			s := li.sums[name]
			if s == nil {
				continue
			}
			for i := range s.funcs {
				f := &s.funcs[i]
				if slices.Contains(funcs[path][f.name], f) {
					continue // a file of the package and of its test variant
				}
				funcs[path][f.name] = append(funcs[path][f.name], f)
				if _, m, ok := strings.Cut(f.name, "."); ok {
					methods[path][m] = append(methods[path][m], fn{path, f})
				}
			}
		}
	})
	li.mu.Unlock()
	importName := func(f *funcSummary, x string) string {
		for _, imp := range f.file.imports {
			if imp[0] == x || imp[0] == "" && names[imp[1]] == x {
				return imp[1]
			}
		}
		return ""
	}
	// resolve returns the functions a ref of f may denote.
	resolve := func(from fn, ref string) []fn {
		var out []fn
		x, sel, isSel := strings.Cut(ref, ".")
		switch {
		case isSel && x != "" && importName(from.sum, x) != "":
			path := importName(from.sum, x)
			for _, f := range funcs[path][sel] {
				out = append(out, fn{path, f})
			}
		case isSel:
			out = append(out, methods[from.pkg][sel]...)
			for _, imp := range imports[from.pkg] {
				out = append(out, methods[imp][sel]...)
			}
		default:
			for _, f := range funcs[from.pkg][ref] {
				out = append(out, fn{from.pkg, f})
			}
		}
		return out
	}
	// What initialization runs, and the goroutines it starts.
	seen := map[*funcSummary]bool{}
	var queue []fn
	type goStmt struct {
		from fn
		ref  string
	}
	var started []goStmt
	for pkg, byName := range funcs {
		for _, f := range byName["init"] {
			queue = append(queue, fn{pkg, f})
		}
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f.sum] {
			continue
		}
		seen[f.sum] = true
		for _, r := range f.sum.calls {
			queue = append(queue, resolve(f, r)...)
		}
		for _, r := range f.sum.goRefs {
			started = append(started, goStmt{f, r})
		}
	}
	// What those goroutines run.
	out := map[string]bool{}
	seen = map[*funcSummary]bool{}
	for _, g := range started {
		out[g.from.pkg] = true // the function literal of a go statement
		queue = append(queue, resolve(g.from, g.ref)...)
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f.sum] {
			continue
		}
		seen[f.sum] = true
		out[f.pkg] = true
		for _, r := range f.sum.refs {
			queue = append(queue, resolve(f, r)...)
		}
	}
	return out
}
