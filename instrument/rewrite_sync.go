package instrument

import (
	"go/ast"
	"go/types"
	"strings"
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
	"runtime": set("Gosched", "Goexit", "Stack", "NumGoroutine", "GC"),
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
	// Not the clock, but the same kind of redirection: the channel the
	// runtime will send signals on loses its model first (xb.SignalNotify).
	"os/signal": {"Notify": "SignalNotify"},
}

// synctestFuncs are testing/synctest's functions, redirected to the
// scheduler's bubbles (synctest.Test(t, f) becomes xb.SynctestTest(t, f),
// whose t and f's parameter are the scheduler's T as the rest of the
// rewritten test's).
var synctestFuncs = map[string]string{"Test": "SynctestTest", "Wait": "SynctestWait"}

// mapsFuncs are the iterators of package maps, redirected to versions that
// yield in the fixed order of rewritten map loops (maps.Keys(m) becomes
// xb.MapsKeys(m)), so that what a test sees of a map's order is the same in
// every execution.
var mapsFuncs = map[string]string{"Keys": "MapsKeys", "Values": "MapsValues", "All": "MapsAll"}

// seedFuncs make random seeds the schedule fixes, as randFuncs do for
// random numbers: maphash.MakeSeed becomes xb.MaphashMakeSeed, so that a
// hash table keyed by maphash (a concurrent map's buckets) lays out its
// keys the same way when a prefix is replayed.
var seedFuncs = map[string]map[string]string{"hash/maphash": {"MakeSeed": "MaphashMakeSeed"}}

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

// collectionFuncs are the functions through which a program can observe
// that an object was collected (or make it be): a package that names one
// has the scheduler not keep objects alive (scheduler.ObservesCollection).
var collectionFuncs = map[string]map[string]bool{
	"runtime": set("GC", "AddCleanup", "SetFinalizer"),
	"weak":    set("Make"),
}

func observesCollection(obj types.Object) bool {
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	_, isFunc := obj.(*types.Func)
	return isFunc && obj.Parent() == obj.Pkg().Scope() && collectionFuncs[obj.Pkg().Path()][obj.Name()]
}

// replacement returns the scheduler's name that replaces obj, and the text
// that follows it (rand's functions become methods of the scheduler's
// source: xb.Rand().Intn), or "" if none does. keepT keeps testing's names
// (in a Test function's signature, which go test calls).
func replacement(obj types.Object, keepT bool) (name, rest string) {
	if obj == nil || obj.Pkg() == nil {
		return "", ""
	}
	if obj.Parent() != obj.Pkg().Scope() {
		return "", "" // a method or field, not a package-level name
	}
	if _, isFunc := obj.(*types.Func); isFunc && randFuncs[obj.Pkg().Path()][obj.Name()] {
		return randSource[obj.Pkg().Path()], "()." + obj.Name()
	}
	if _, isFunc := obj.(*types.Func); isFunc {
		if n := clockFuncs[obj.Pkg().Path()][obj.Name()]; n != "" {
			return n, ""
		}
		if n := mapsFuncs[obj.Name()]; n != "" && obj.Pkg().Path() == "maps" {
			return n, ""
		}
		if n := seedFuncs[obj.Pkg().Path()][obj.Name()]; n != "" {
			return n, ""
		}
		if n := synctestFuncs[obj.Name()]; n != "" && obj.Pkg().Path() == "testing/synctest" {
			return n, ""
		}
		if obj.Pkg().Path() == lockfreePath && lockfreeFuncs[obj.Name()] {
			return obj.Name(), ""
		}
	}
	names := replacements[obj.Pkg().Path()]
	if !names[obj.Name()] {
		return "", ""
	}
	if obj.Pkg().Path() == "testing" && keepT {
		return "", ""
	}
	return obj.Name(), ""
}

// importedObj returns the object of another package that e names, a
// qualified identifier such as sync.Mutex or a name of a dot-imported
// package, or nil.
func importedObj(info *types.Info, pkg *types.Package, e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil
		}
		if _, ok := info.Uses[x].(*types.PkgName); !ok {
			return nil
		}
		return info.Uses[e.Sel]
	case *ast.Ident:
		obj := info.Uses[e]
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == pkg {
			return nil
		}
		return obj
	}
	return nil
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

// clockRecv says how the receiver of a Stop or Reset method of *time.Timer
// or *time.Ticker is wrapped, xt its type: t.Stop() becomes
// xb.TimerOf(t).Stop(), ctl being "TimerOf". A method promoted from an
// embedded timer names the embedded field, path (w.Stop() becomes
// xb.TimerOf((w).Timer).Stop()), and one called on an addressable
// time.Timer value takes its address (addr). ctl is "" for other methods.
func clockRecv(xt types.Type, sel *types.Selection) (ctl, path string, addr bool) {
	ctl = clockMethodCtl(sel.Obj())
	if ctl == "" {
		return "", "", false
	}
	t := xt
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if p, ok := under(t).(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := under(t).(*types.Struct)
		if !ok {
			return "", "", false
		}
		f := st.Field(i)
		path += "." + f.Name()
		t = f.Type()
	}
	// A time.Timer value: the code compiles, so it is addressable (the
	// method is called on its address).
	return ctl, path, !isPointer(t)
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

// clockMethodFunc returns the scheduler's function that replaces the method
// expression (*time.Timer).Stop (or Reset, or a Ticker's), of the same
// type (TimerStop), or "". A method expression of a type that embeds a
// timer is left alone (it calls the real method).
func clockMethodFunc(sel *types.Selection) string {
	ctl := clockMethodCtl(sel.Obj())
	if ctl == "" || len(sel.Index()) != 1 {
		return ""
	}
	return strings.TrimSuffix(ctl, "Of") + sel.Obj().Name()
}
