package instrument

import (
	"fmt"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/typestr"
)

// Rewritten code calls the scheduler (imported as xb) and a few generic
// helpers that the rewriter adds to each package in a generated file (the
// "helper file" of a compilation unit: the package, the additions of its
// internal test files, its external test package). Helpers keep the rewrite
// free of type names: `p.n` read becomes `_xbLoad(&p.n, pos)`, whatever the
// type of p.n, so unexported types of other packages and types declared in
// functions need no spelling.
//
// A file whose Go version predates generics (a module with `go 1.12`) can
// call neither the helpers nor the scheduler's generic functions, and its
// version must not be raised: that would change its loop variable semantics.
// Such a file calls a non-generic wrapper per instantiation instead,
// generated into the helper file, which carries //go:build go1.18: since Go
// 1.21 a go1.N build constraint gives that one file the language version
// max(go1.N, go1.21), so the wrappers may instantiate generics while the
// user's files keep go1.12.

// helper describes a generic function rewritten code calls, with what a
// wrapper of one instantiation needs.
type helper struct {
	call    string   // the name rewritten code uses; "xb." means the scheduler
	tparams []string // type parameters, in order
	params  string   // wrapper parameters, with {T} placeholders and {xb}
	results string   // wrapper results
	args    string   // the wrapper's call arguments
}

var (
	hLoad     = &helper{"_xbLoad", []string{"T"}, "p *{T}, pos {xb}.Pos", "{T}", "p, pos"}
	hStore    = &helper{"_xbStore", []string{"T"}, "p *{T}, pos {xb}.Pos", "*{T}", "p, pos"}
	hRMW      = &helper{"_xbRMW", []string{"T"}, "p *{T}, pos {xb}.Pos", "*{T}", "p, pos"}
	hWrote    = &helper{"_xbWrote", []string{"T"}, "p *{T}, pos {xb}.Pos", "", "p, pos"}
	hMapLoad  = &helper{"_xbMapLoad", []string{"M", "K", "V"}, "m {M}, pos {xb}.Pos", "{M}", "m, pos"}
	hMapStore = &helper{"_xbMapStore", []string{"M", "K", "V"}, "m {M}, pos {xb}.Pos", "{M}", "m, pos"}
	hMapRMW   = &helper{"_xbMapRMW", []string{"M", "K", "V"}, "m {M}, pos {xb}.Pos", "{M}", "m, pos"}
	hSlice    = &helper{"_xbSlice", []string{"S", "E"}, "s {S}", "{S}", "s"}
	hMakeChan = &helper{"_xbMakeChan", []string{"C", "E"}, "size int", "{C}", "size"}
	hChanV    = &helper{"_xbChanV", []string{"T"}, "c <-chan {T}", "(<-chan {T}, {T})", "c"}
	hRecvSlot = &helper{"_xbRecvSlot", []string{"T"}, "c <-chan {T}", "*_xbSlot[{T}]", "c"}
	hFenced   = &helper{"_xbFenced", []string{"T"}, "v {T}", "{T}", "v"}
	hMapIter  = &helper{"_xbMapIter", []string{"M", "K", "V"}, "m {M}, pos {xb}.Pos", "(*_xbMapIt[{K}, {V}], {K}, {V})", "m, pos"}

	hSend     = &helper{"xb.Send", []string{"T"}, "ch chan<- {T}, v {T}", "", "ch, v"}
	hRecv     = &helper{"xb.Recv", []string{"T"}, "ch <-chan {T}", "{T}", "ch"}
	hRecv2    = &helper{"xb.Recv2", []string{"T"}, "ch <-chan {T}", "({T}, bool)", "ch"}
	hClose    = &helper{"xb.Close", []string{"T"}, "ch chan<- {T}", "", "ch"}
	hLen      = &helper{"xb.Len", []string{"T"}, "ch <-chan {T}", "int", "ch"}
	hLenSend  = &helper{"xb.LenSend", []string{"T"}, "ch chan<- {T}", "int", "ch"}
	hNew      = &helper{"xb.New", []string{"T"}, "p *{T}", "*{T}", "p"}
	hNewMap   = &helper{"xb.NewMap", []string{"M", "K", "V"}, "m {M}", "{M}", "m"}
	hSendCase = &helper{"xb.SendCase", []string{"T"}, "ch chan<- {T}, v {T}", "{xb}.Case", "ch, v"}
	hRecvCase = &helper{"xb.RecvCase", []string{"T"}, "ch <-chan {T}, dst *{T}", "{xb}.Case", "ch, dst"}
)

// Names the helper files give their imports.
const (
	genXB     = "_xbs"
	genUnsafe = "_xbunsafe"
)

// genFile is the generated helper file of one compilation unit.
type genFile struct {
	pkgName  string
	unitTag  string // keeps the wrapper names of the units of one package apart
	path     string // where the overlay puts it
	imports  *typestr.Imports
	generics bool // define the generic helpers here
	buffered bool // -memory tso|pso: the helpers carry values (bufferedHelpers)
	collects bool // the package can observe a collection (collectionFuncs)
	needTag  bool // the module's Go version predates generics
	wrappers map[string]string
	wsrc     []string
	globals  []string
}

func newGenFile(pkg *types.Package, path string) *genFile {
	return &genFile{pkgName: pkg.Name(), path: path, imports: typestr.NewImports(pkg, typestr.Scheduler{Path: schedulerPath, Name: genXB, Replaced: replacements}), wrappers: map[string]string{}}
}

// wrapper returns the name of the non-generic wrapper of h instantiated
// with targs, creating it on first use.
func (g *genFile) wrapper(h *helper, targs []types.Type) (string, error) {
	if len(targs) != len(h.tparams) {
		panic(fmt.Sprintf("instrument: %s takes %d type arguments, got %d", h.call, len(h.tparams), len(targs)))
	}
	strs := make([]string, len(targs))
	for i, t := range targs {
		s, err := g.imports.TypeString(t)
		if err != nil {
			return "", err
		}
		strs[i] = s
	}
	key := h.call + "[" + strings.Join(strs, ", ") + "]"
	if n, ok := g.wrappers[key]; ok {
		return n, nil
	}
	name := "_xbW" + g.unitTag + strconv.Itoa(len(g.wrappers))
	g.wrappers[key] = name
	repl := []string{"{xb}", genXB}
	for i, tp := range h.tparams {
		repl = append(repl, "{"+tp+"}", strs[i])
	}
	r := strings.NewReplacer(repl...)
	callee := h.call
	if rest, ok := strings.CutPrefix(callee, "xb."); ok {
		callee = genXB + "." + rest
	}
	body := fmt.Sprintf("%s[%s](%s)", callee, strings.Join(strs, ", "), h.args)
	if h.results != "" {
		body = "return " + body
	}
	g.wsrc = append(g.wsrc, fmt.Sprintf("// %s is %s.\nfunc %s(%s) %s { %s }\n", name, key, name, r.Replace(h.params), r.Replace(h.results), body))
	return name, nil
}

// global registers a package-level variable of the unit.
func (g *genFile) global(name, display string) {
	g.globals = append(g.globals, fmt.Sprintf("\t%s.GlobalOf(&%s, %s)\n", genXB, name, quote(display)))
}

func (g *genFile) empty() bool {
	return !g.generics && len(g.wsrc) == 0 && len(g.globals) == 0 && !g.collects
}

// source returns the file's text.
func (g *genFile) source() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by xbtest. DO NOT EDIT.\n\n")
	if g.needTag {
		b.WriteString("//go:build go1.18\n\n")
	}
	fmt.Fprintf(&b, "package %s\n\nimport (\n", g.pkgName)
	fmt.Fprintf(&b, "\t%s %s\n\t%s \"unsafe\"\n", genXB, quote(schedulerPath), genUnsafe)
	for _, imp := range g.imports.Decls() {
		fmt.Fprintf(&b, "\t%s\n", imp)
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "var _ %s.Pos\nvar _ %s.Pointer\n\n", genXB, genUnsafe)
	if g.generics {
		// The binary says what it was rewritten for: the scheduler
		// refuses to run it under a memory model it was not (RewrittenFor).
		fmt.Fprintf(&b, "var _ = %s.RewrittenFor(%v)\n\n", genXB, g.buffered)
		if g.buffered {
			b.WriteString(bufferedHelpers())
		} else {
			b.WriteString(genericHelpers)
		}
	}
	if g.collects {
		// The package may wait for an object to be collected: executions
		// must not keep objects alive (scheduler.ObservesCollection).
		fmt.Fprintf(&b, "var _ = %s.ObservesCollection()\n\n", genXB)
	}
	if len(g.globals) > 0 {
		b.WriteString("\n// Package-level variables, registered so that they have the same name in\n// every execution.\nvar _ = func() bool {\n")
		globals := append([]string(nil), g.globals...)
		sort.Strings(globals)
		for _, l := range globals {
			b.WriteString(l)
		}
		b.WriteString("\treturn true\n}()\n")
	}
	if len(g.wsrc) > 0 {
		b.WriteString("\n// Wrappers for files whose Go version predates generics.\n\n")
		for _, w := range g.wsrc {
			b.WriteString(w)
		}
	}
	return []byte(b.String())
}

// bufferedHelpers are genericHelpers for -memory tso|pso. The helper
// flavour is chosen when the package is rewritten, so that the default (sc)
// helper file is exactly the one without store buffers and costs nothing
// more. A store through a buffer must not reach memory until its flush and a
// load must see the goroutine's own buffered stores, so loads and plain
// assignments call scheduler.Load and scheduler.Store, which carry the
// value. _xbWrote follows a write that has already reached memory (after a
// right-hand side that called functions): it fences and rewrites the value,
// as a LOCK'd store would (scheduler.Wrote). The forms that return a pointer
// for the program to write through (_xbStore, _xbRMW: tuple assignments
// without calls, x op= f(), range targets, pointer methods of code that is
// not rewritten) report with Read and Write, which drain the buffer first:
// those accesses are fenced, fewer behaviours than the hardware has, never
// more; x op= f() also fences after f() (_xbFenced).
func bufferedHelpers() string {
	s := genericHelpers
	for _, r := range [][2]string{
		{"\t_xbs.Read(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)\n\treturn *p\n", "\treturn _xbs.Load(p, pos)\n"},
		{"\t_xbs.Write(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)\n\t*p = v\n", "\t_xbs.Store(p, v, pos)\n"},
		{"\t_xbs.Write(_xbunsafe.Pointer(r.p), _xbunsafe.Sizeof(*r.p), r.pos)\n\t*r.p = v\n", "\t_xbs.Store(r.p, v, r.pos)\n"},
	} {
		if !strings.Contains(s, r[0]) {
			panic("instrument: bufferedHelpers: helper text changed: " + r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return s + fencedHelper + drainedHelper
}

// fencedHelper: the rewriter wraps the right-hand side of x op= f() in it
// when x goes through _xbRMW (see opAssign).
const fencedHelper = `
// _xbFenced returns v after a fence. In x op= f() whose target cannot be
// evaluated twice, the read-modify-write goes to memory directly after the
// call: the stores f put into the buffer must reach memory first, as TSO
// keeps stores in order.
func _xbFenced[T any](v T) T {
	_xbs.Fence()
	return v
}
`

// genericHelpers are defined once per package (and once per external test
// package). Their names start with _xb, which also lets reports skip their
// frames.
const genericHelpers = `// _xbLoad reports a read of *p and returns its value.
func _xbLoad[T any](p *T, pos _xbs.Pos) T {
	_xbs.Read(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)
	return *p
}

// _xbStore reports a write of *p and returns p for the assignment.
func _xbStore[T any](p *T, pos _xbs.Pos) *T {
	_xbs.Write(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)
	return p
}

// _xbAssign reports a write of *p after v was evaluated, then stores v
// (the form of files without generics, whose wrappers convert v).
func _xbAssign[T any](p *T, v T, pos _xbs.Pos) {
	_xbs.Write(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)
	*p = v
}

// _xbRef is a location about to be assigned: _xbAt(&x, pos).set(v) is
// x = v with the write reported after v was evaluated. Unlike a generic
// function of p and v, the method converts v to the location's type as an
// assignment does (an ed25519.PrivateKey into a []byte, a concrete type
// into an interface), where type inference would fail.
type _xbRef[T any] struct {
	p   *T
	pos _xbs.Pos
}

func _xbAt[T any](p *T, pos _xbs.Pos) _xbRef[T] { return _xbRef[T]{p, pos} }

func (r _xbRef[T]) set(v T) {
	_xbs.Write(_xbunsafe.Pointer(r.p), _xbunsafe.Sizeof(*r.p), r.pos)
	*r.p = v
}

// _xbRMW reports a read and a write of *p (x op= y, x++).
func _xbRMW[T any](p *T, pos _xbs.Pos) *T {
	_xbs.Read(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)
	_xbs.Write(_xbunsafe.Pointer(p), _xbunsafe.Sizeof(*p), pos)
	return p
}

// _xbWrote reports a write of *p that has just happened (after a
// right-hand side that called functions), in the atomic block it happened
// in: no block boundary comes first, even at access granularity, since the
// write is already done (scheduler.Wrote).
func _xbWrote[T any](p *T, pos _xbs.Pos) {
	_xbs.Wrote(p, pos)
}

// A map is one location.

// _xbMapLoad and _xbMapStore spell _xbs.MapAddr(m) out, which keeps them
// within the inliner's budget of 80 (MapAddr's two levels of forwarding
// cost 96).

func _xbMapLoad[M ~map[K]V, K comparable, V any](m M, pos _xbs.Pos) M {
	if m != nil {
		_xbs.Read(*(*_xbunsafe.Pointer)(_xbunsafe.Pointer(&m)), 1, pos)
	}
	return m
}

func _xbMapStore[M ~map[K]V, K comparable, V any](m M, pos _xbs.Pos) M {
	if m != nil {
		_xbs.Write(*(*_xbunsafe.Pointer)(_xbunsafe.Pointer(&m)), 1, pos)
	}
	return m
}

func _xbMapRMW[M ~map[K]V, K comparable, V any](m M, pos _xbs.Pos) M {
	if m != nil {
		_xbs.Read(_xbs.MapAddr(m), 1, pos)
		_xbs.Write(_xbs.MapAddr(m), 1, pos)
	}
	return m
}

// _xbSlice registers the backing array of s, keeping the type of s.
func _xbSlice[S ~[]E, E any](s S) S {
	_xbs.Slice([]E(s))
	return s
}

// _xbMakeChan makes a channel of a named channel type.
func _xbMakeChan[C ~chan E, E any](size int) C {
	return C(_xbs.MakeChan[E](size))
}

// _xbSender converts a value sent on a channel as an assignment would:
// xb.Send(_xbChanOf(ch).val(v)), where xb.Send(ch, v) would not infer its
// type argument.
type _xbSender[T any] struct{ c chan<- T }

func _xbChanOf[T any](c chan<- T) _xbSender[T] { return _xbSender[T]{c} }

func (s _xbSender[T]) val(v T) (chan<- T, T) { return s.c, v }

// _xbChanV starts a loop over a channel: the channel, evaluated once, and
// the zero value that declares the loop variable.
func _xbChanV[T any](c <-chan T) (<-chan T, T) {
	var v T
	return c, v
}

// select: _xbSlot holds a receive case's channel and value, _xbSelRes the
// ok of the chosen case.

type _xbSlot[T any] struct {
	c <-chan T
	v T
}

func _xbRecvSlot[T any](c <-chan T) *_xbSlot[T] { return &_xbSlot[T]{c: c} }

type _xbSelRes struct{ ok bool }

func (s *_xbSelRes) set(i int, ok bool) int {
	s.ok = ok
	return i
}

// _xbMapIt iterates over a map in a fixed order: the keys present when the
// loop starts, sorted, skipping those deleted during the loop (Go allows
// entries added during the loop to be skipped). Keys that only compare by
// address (pointers, channels) keep an order that depends on addresses.
type _xbMapIt[K comparable, V any] struct {
	m    map[K]V
	keys []K
	i    int
	pos  _xbs.Pos
}

func _xbMapIter[M ~map[K]V, K comparable, V any](m M, pos _xbs.Pos) (*_xbMapIt[K, V], K, V) {
	it := &_xbMapIt[K, V]{m: m, pos: pos}
	if m != nil {
		_xbs.Read(_xbs.MapAddr(m), 1, pos)
		it.keys = make([]K, 0, len(m))
		for k := range m {
			it.keys = append(it.keys, k)
		}
		_xbs.SortKeys(it.keys)
	}
	var k K
	var v V
	return it, k, v
}

func (it *_xbMapIt[K, V]) next(k *K, v *V) bool {
	for it.i < len(it.keys) {
		key := it.keys[it.i]
		it.i++
		_xbs.Read(_xbs.MapAddr(it.m), 1, it.pos)
		val, ok := it.m[key]
		if !ok {
			continue
		}
		if k != nil {
			*k = key
		}
		if v != nil {
			*v = val
		}
		return true
	}
	return false
}
`
