package typestr

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestTypeString checks the types the wrappers of files without generics
// name: the sync, sync/atomic and testing types a rewritten package spells
// are the scheduler's, those in fields of a package that is not rewritten
// stay.
func TestTypeString(t *testing.T) {
	const src = `package p

import (
	"sync"
	"sync/atomic"
	"testing"
)

type Local struct{}

var A struct {
	sync.Mutex
	T    *testing.T ` + "`json:\"t\"`" + `
	F    func(int, ...*sync.WaitGroup) (chan<- sync.Once, error)
	C    chan (<-chan *sync.Cond)
	M    map[string][]sync.RWMutex
	N    atomic.Int64
	L    Local
	I    interface{ M(testing.TB) sync.Locker }
	B    *testing.B
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	typ := pkg.Scope().Lookup("A").Type()

	sched := Scheduler{Path: "github.com/xbtest/xbtest/scheduler", Name: "_xbs", Replaced: map[string]map[string]bool{
		"sync":        {"Mutex": true, "RWMutex": true, "Cond": true, "WaitGroup": true, "Once": true},
		"sync/atomic": {"Int64": true},
		"testing":     {"T": true, "TB": true},
	}}
	s := NewImports(pkg, sched)
	s.Rewritten = map[string]bool{"example.com/p": true}
	got, err := s.TypeString(typ)
	if err != nil {
		t.Fatal(err)
	}
	const want = `struct{_xbs.Mutex; T *_xbs.T "json:\"t\""; F func(int, ...*_xbs.WaitGroup) (chan<- _xbs.Once, error); ` +
		`C chan (<-chan *_xbs.Cond); M map[string][]_xbs.RWMutex; N _xbs.Int64; L Local; I interface{M(_xbs.TB) _xbi0.Locker}; B *_xbi1.B}`
	if got != want {
		t.Errorf("rewritten package:\n got %s\nwant %s", got, want)
	}

	// The same type seen from another package, p not rewritten.
	other := NewImports(types.NewPackage("example.com/q", "q"), sched)
	other.Rewritten = map[string]bool{"example.com/q": true}
	got, err = other.TypeString(types.NewPointer(typ))
	if err != nil {
		t.Fatal(err)
	}
	const wantOther = `*struct{_xbi0.Mutex; T *_xbi1.T "json:\"t\""; F func(int, ...*_xbi0.WaitGroup) (chan<- _xbi0.Once, error); ` +
		`C chan (<-chan *_xbi0.Cond); M map[string][]_xbi0.RWMutex; N _xbi2.Int64; L _xbi3.Local; I interface{M(_xbi1.TB) _xbi0.Locker}; B *_xbi1.B}`
	if got != wantOther {
		t.Errorf("package not rewritten:\n got %s\nwant %s", got, wantOther)
	}
	if _, err := s.TypeString(types.Typ[types.UnsafePointer]); err == nil {
		t.Error("unsafe.Pointer is nameable")
	}
}
