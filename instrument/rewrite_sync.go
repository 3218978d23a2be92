package instrument

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// schedulerPath is the package rewritten code calls.
const schedulerPath = "github.com/xbtest/xbtest/scheduler"

// Replacements of identifiers of the standard library by the scheduler's
// drop-in equivalents, by package and name. sync.Locker stays: xb.Mutex
// implements it.
var replacements = map[string]map[string]bool{
	"sync": set("Mutex", "RWMutex", "Cond", "NewCond", "WaitGroup", "Once", "Map", "Pool",
		"OnceFunc", "OnceValue", "OnceValues"),
	"sync/atomic": set(
		"AddInt32", "AddInt64", "AddUint32", "AddUint64", "AddUintptr",
		"AndInt32", "AndInt64", "AndUint32", "AndUint64", "AndUintptr",
		"OrInt32", "OrInt64", "OrUint32", "OrUint64", "OrUintptr",
		"CompareAndSwapInt32", "CompareAndSwapInt64", "CompareAndSwapPointer",
		"CompareAndSwapUint32", "CompareAndSwapUint64", "CompareAndSwapUintptr",
		"LoadInt32", "LoadInt64", "LoadPointer", "LoadUint32", "LoadUint64", "LoadUintptr",
		"StoreInt32", "StoreInt64", "StorePointer", "StoreUint32", "StoreUint64", "StoreUintptr",
		"SwapInt32", "SwapInt64", "SwapPointer", "SwapUint32", "SwapUint64", "SwapUintptr",
		"Bool", "Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Pointer", "Value"),
	"runtime": set("Gosched", "Goexit"),
	"testing": set("T", "TB"),
}

// randFuncs are the top-level functions of math/rand and math/rand/v2 that
// are also methods of their Rand type: they are redirected to the
// scheduler's per-execution source (rand.Intn(n) becomes
// xb.Rand().Intn(n)), so that an execution draws the same numbers when its
// prefix is replayed. (v2's generic N has no method; it stays.)
var randFuncs = map[string]map[string]bool{
	"math/rand": set("ExpFloat64", "Float32", "Float64", "Int", "Int31", "Int31n", "Int63", "Int63n",
		"Intn", "NormFloat64", "Perm", "Read", "Seed", "Shuffle", "Uint32", "Uint64"),
	"math/rand/v2": set("ExpFloat64", "Float32", "Float64", "Int", "Int32", "Int32N", "Int64", "Int64N",
		"IntN", "NormFloat64", "Perm", "Shuffle", "Uint", "Uint32", "Uint32N", "Uint64", "Uint64N", "UintN"),
}

var randSource = map[string]string{"math/rand": "Rand", "math/rand/v2": "RandV2"}

// clockFuncs are the functions of time and context that read or wait on the
// clock, redirected to the scheduler's virtual clock (time.Sleep becomes
// xb.TimeSleep). Their results keep their types (*time.Timer,
// context.Context), so user code compiles unchanged; the Stop and Reset
// methods of timers and tickers go through clockMethods.
var clockFuncs = map[string]map[string]string{
	"time": {"Now": "TimeNow", "Since": "TimeSince", "Until": "TimeUntil", "Sleep": "TimeSleep",
		"After": "TimeAfter", "Tick": "TimeTick", "NewTimer": "TimeNewTimer", "NewTicker": "TimeNewTicker",
		"AfterFunc": "TimeAfterFunc"},
	"context": {"WithCancel": "ContextWithCancel", "WithCancelCause": "ContextWithCancelCause",
		"WithTimeout": "ContextWithTimeout", "WithTimeoutCause": "ContextWithTimeoutCause",
		"WithDeadline": "ContextWithDeadline", "WithDeadlineCause": "ContextWithDeadlineCause",
		"AfterFunc": "ContextAfterFunc", "Cause": "ContextCause"},
}

// mapsFuncs are the iterators of package maps, redirected to versions that
// yield in the fixed order of rewritten map loops (maps.Keys(m) becomes
// xb.MapsKeys(m)), so that what a test sees of a map's order is the same in
// every execution.
var mapsFuncs = map[string]string{"Keys": "MapsKeys", "Values": "MapsValues", "All": "MapsAll"}

// lockfreePath is the package of fences weaker or other than Go's
// (lockfree.AcquireFence, ReleaseFence, Fence): in plain Go they are
// locked instructions on a private word; rewritten, the scheduler's hooks
// of the same names (scheduler/internal/engine/fences.go), which the memory model gives
// their store-buffer semantics.
const lockfreePath = "github.com/xbtest/xbtest/lockfree"

var lockfreeFuncs = set("AcquireFence", "ReleaseFence", "Fence")

// clockMethods: t.Stop() on a *time.Timer becomes xb.TimerOf(t).Stop().
var clockMethods = map[string]string{"Timer": "TimerOf", "Ticker": "TickerOf"}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// replacement returns the scheduler name that replaces obj, or "".
func (r *fileRW) replacement(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	if obj.Parent() != obj.Pkg().Scope() {
		return "" // a method or field, not a package-level name
	}
	if _, isFunc := obj.(*types.Func); isFunc && randFuncs[obj.Pkg().Path()][obj.Name()] {
		return r.X(randSource[obj.Pkg().Path()]) + "()." + obj.Name()
	}
	if _, isFunc := obj.(*types.Func); isFunc {
		if n := clockFuncs[obj.Pkg().Path()][obj.Name()]; n != "" {
			return r.X(n)
		}
		if n := mapsFuncs[obj.Name()]; n != "" && obj.Pkg().Path() == "maps" {
			return r.X(n)
		}
		if obj.Pkg().Path() == lockfreePath && lockfreeFuncs[obj.Name()] {
			return r.X(obj.Name())
		}
	}
	names := replacements[obj.Pkg().Path()]
	if !names[obj.Name()] {
		return ""
	}
	if obj.Pkg().Path() == "testing" && r.keepT {
		return ""
	}
	return r.X(obj.Name())
}

// replaceSelector replaces a qualified identifier such as sync.Mutex.
func (r *fileRW) replaceSelector(e *ast.SelectorExpr) bool {
	x, ok := e.X.(*ast.Ident)
	if !ok {
		return false
	}
	if _, ok := r.info.Uses[x].(*types.PkgName); !ok {
		return false
	}
	repl := r.replacement(r.info.Uses[e.Sel])
	if repl == "" {
		return false
	}
	r.ed.Replace(e, edit.Lit(repl))
	return true
}

// replaceIdent replaces a name of a dot-imported package.
func (r *fileRW) replaceIdent(e *ast.Ident) bool {
	obj := r.info.Uses[e]
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == r.u.pkg.Types {
		return false
	}
	repl := r.replacement(obj)
	if repl == "" {
		return false
	}
	r.ed.Replace(e, edit.Lit(repl))
	return true
}

// syncType reports whether t is (a pointer to) a type the scheduler
// replaces: its methods are synchronization operations, not memory
// accesses.
func syncType(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	path := n.Obj().Pkg().Path()
	return (path == "sync" || path == "sync/atomic") && replacements[path][n.Obj().Name()] || path == schedulerPath
}

// clockMethod wraps the receiver of a Stop or Reset method of *time.Timer
// or *time.Ticker: t.Stop() becomes xb.TimerOf(t).Stop(). A method promoted
// from an embedded timer names the embedded field (w.Stop() becomes
// xb.TimerOf((w).Timer).Stop()), and one called on an addressable
// time.Timer value takes its address. The receiver is visited first.
func (r *fileRW) clockMethod(e *ast.SelectorExpr, sel *types.Selection) bool {
	ctl := clockMethodCtl(sel.Obj())
	if ctl == "" {
		return false
	}
	t := r.typeOf(e.X)
	path := ""
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if p, ok := under(t).(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := under(t).(*types.Struct)
		if !ok {
			return false
		}
		f := st.Field(i)
		path += "." + f.Name()
		t = f.Type()
	}
	// A time.Timer value: the code compiles, so it is addressable (the
	// method is called on its address).
	addr := !isPointer(t)
	r.expr(e.X)
	switch {
	case path == "" && !addr:
		r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"("), r.ed.Src(e.X), edit.Lit(")"))
	case addr:
		r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"(&("), r.ed.Src(e.X), edit.Lit(path+"))"))
	default:
		r.ed.Replace(e.X, edit.Lit(r.X(ctl)+"(("), r.ed.Src(e.X), edit.Lit(")"+path+")"))
	}
	return true
}

// clockMethodCtl returns the scheduler function whose result carries
// method obj when obj is Stop or Reset of *time.Timer or *time.Ticker
// ("TimerOf", "TickerOf"), or "".
func clockMethodCtl(obj types.Object) string {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" || fn.Name() != "Stop" && fn.Name() != "Reset" {
		return ""
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	p, ok := types.Unalias(recv.Type()).(*types.Pointer)
	if !ok {
		return ""
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok {
		return ""
	}
	return clockMethods[n.Obj().Name()]
}

// clockMethodExpr replaces the method expression (*time.Timer).Stop (or
// Reset, or a Ticker's) by the scheduler's function of the same type,
// xb.TimerStop. A method expression of a type that embeds a timer is left
// alone (it calls the real method).
func (r *fileRW) clockMethodExpr(e *ast.SelectorExpr, sel *types.Selection) bool {
	ctl := clockMethodCtl(sel.Obj())
	if ctl == "" || len(sel.Index()) != 1 {
		return false
	}
	r.ed.Replace(e, edit.Lit(r.X(strings.TrimSuffix(ctl, "Of")+sel.Obj().Name())))
	return true
}
