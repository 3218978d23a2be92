package instrument

import (
	"go/ast"
	"go/types"
)

// Under -memory tso|pso, code that is not rewritten (the standard
// library, a dependency left as it is) reads and writes memory directly:
// it would miss the calling goroutine's own buffered stores, and its
// stores would overtake them. So before such a call, and before the
// builtins and conversions that read or write a slice's elements in
// memory (copy, append, clear, string(b)), the goroutine's buffers are
// drained (scheduler.DrainBeforeForeignCall; see the engine's foreign.go),
// when the call passes something through which memory can be reached.
// The drain comes with the last such argument (_xbDrained(v) returns v),
// so the arguments before it are evaluated first.

// hDrained is the helper that drains and returns its argument.
var hDrained = &helper{"_xbDrained", []string{"T"}, "v {T}", "{T}", "v"}

// drainedHelper is added to the buffered helpers (helpers.go).
const drainedHelper = `
// _xbDrained returns v after draining the goroutine's store buffers: v is
// the last argument of a call into code that is not rewritten, which
// reads memory without seeing them.
func _xbDrained[T any](v T) T {
	_xbs.DrainBeforeForeignCall()
	return v
}
`

// notForeign are the packages whose calls the rewrite replaces or that
// reach no memory of the program's: their calls need no drain.
var notForeign = set("sync", "sync/atomic", "runtime", "testing", "time", "context",
	"math/rand", "math/rand/v2", "maps", "unsafe", schedulerPath, lockfreePath)

// foreignDrain returns what to wrap in _xbDrained, and its type, if e
// calls a function or method of a package that is not rewritten (rewritten
// says which are): the last argument of e that reaches memory, or its
// receiver; nil if there is nothing to drain for.
func foreignDrain(info *types.Info, rewritten map[string]bool, e *ast.CallExpr) (ast.Expr, types.Type) {
	fun := unparen(e.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X // an instantiation: slices.Contains[[]int]
	case *ast.IndexListExpr:
		fun = f.X
	}
	id := calleeIdent(fun)
	if id == nil {
		return nil, nil
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || rewritten[fn.Pkg().Path()] || notForeign[fn.Pkg().Path()] {
		return nil, nil
	}
	if a, t := lastMemoryArg(info, e); a != nil {
		return a, t
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil, nil
	}
	if s := info.Selections[sel]; s == nil || s.Kind() != types.MethodVal {
		return nil, nil
	}
	// No argument reaches memory: the receiver may (buf.Len()). A pointer
	// or interface receiver can be wrapped as it is; a value one only when
	// the method takes a copy (a pointer method of an addressable value
	// takes its address, which a wrapped copy would not have: those calls
	// report a write of the receiver, which drains, in selector).
	xt := info.TypeOf(sel.X)
	switch under(xt).(type) {
	case *types.Pointer, *types.Interface:
	default:
		if isPointer(fn.Type().(*types.Signature).Recv().Type()) {
			return nil, nil
		}
	}
	if reachesMemory(xt) {
		return sel.X, xt
	}
	return nil, nil
}

// lastMemoryArg returns the last argument of e through which memory can be
// reached, and its type, or nil.
func lastMemoryArg(info *types.Info, e *ast.CallExpr) (ast.Expr, types.Type) {
	for i := len(e.Args) - 1; i >= 0; i-- {
		a := e.Args[i]
		tv, ok := info.Types[a]
		if !ok || tv.IsNil() || tv.IsType() {
			continue
		}
		if _, tuple := tv.Type.(*types.Tuple); tuple {
			return nil, nil // f(g()) with g's results spread: nothing to wrap
		}
		if reachesMemory(tv.Type) {
			return a, tv.Type
		}
	}
	return nil, nil
}

// reachesMemory reports whether a value of type t can lead to memory other
// goroutines can write: anything but numbers, strings and booleans, and
// arrays and structs of them. A type parameter might be anything.
func reachesMemory(t types.Type) bool {
	return reaches(t, map[types.Type]bool{})
}

func reaches(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Array:
		return reaches(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if reaches(u.Field(i).Type(), seen) {
				return true
			}
		}
		return false
	}
	return true
}
