package load

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// Which dependencies are worth rewriting is decided from a scan of their
// syntax while they load (scanFile): packages that only compute are left
// alone.

// depUse says what a package's code does that makes it worth rewriting.
type depUse uint8

const (
	useGo      depUse = 1 << iota // go statements
	useSync                       // imports sync or sync/atomic
	useChan                       // channel types, operations, select
	useTimer                      // sleeps, timers, tickers, context deadlines
	useTesting                    // imports testing: a test helper whose *testing.T must be the scheduler's, as the tests' is
)

func (u depUse) String() string {
	var s []string
	for _, x := range []struct {
		bit  depUse
		what string
	}{{useGo, "starts goroutines"}, {useSync, "synchronizes"}, {useChan, "uses channels"}, {useTimer, "uses timers"}, {useTesting, "uses testing"}} {
		if u&x.bit != 0 {
			s = append(s, x.what)
		}
	}
	return strings.Join(s, ", ")
}

// timerFuncs are the functions of time and context whose callers wait on
// the clock.
var timerFuncs = map[string]map[string]bool{
	"time":    {"Sleep": true, "After": true, "Tick": true, "NewTimer": true, "NewTicker": true, "AfterFunc": true},
	"context": {"WithTimeout": true, "WithTimeoutCause": true, "WithDeadline": true, "WithDeadlineCause": true},
}

// scanFile tells, from f's syntax alone, what in it the scheduler needs to
// control. It errs on the side of rewriting: a channel type anywhere counts.
func scanFile(f *ast.File) depUse {
	var use depUse
	names := map[string]string{} // local names of time and context
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		switch path {
		case "sync", "sync/atomic":
			use |= useSync
		case "testing":
			use |= useTesting
		case "time", "context":
			name := path
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = path
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			use |= useGo
		case *ast.SendStmt, *ast.SelectStmt, *ast.ChanType:
			use |= useChan
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				use |= useChan
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && timerFuncs[names[x.Name]][n.Sel.Name] {
				use |= useTimer
			}
		}
		return true
	})
	return use
}

// info is what Load learns of the files it parses.
type info struct {
	mu       sync.Mutex
	use      map[string]depUse       // by file name, outside the standard library
	sums     map[string]*fileSummary // by file name, outside the standard library
	stripped map[string]bool         // files whose function bodies were dropped
}

func (li *info) record(file string, use depUse, sum *fileSummary, stripped bool) {
	li.mu.Lock()
	defer li.mu.Unlock()
	if li.use == nil {
		li.use, li.sums, li.stripped = map[string]depUse{}, map[string]*fileSummary{}, map[string]bool{}
	}
	li.use[file] = use
	li.sums[file] = sum
	if stripped {
		li.stripped[file] = true
	}
}

// pkgUse is what the non-test files of p do.
func (li *info) pkgUse(p *packages.Package) depUse {
	var use depUse
	if p.Imports["sync"] != nil || p.Imports["sync/atomic"] != nil {
		use |= useSync
	}
	if p.Imports["testing"] != nil {
		use |= useTesting
	}
	li.mu.Lock()
	defer li.mu.Unlock()
	for _, f := range p.CompiledGoFiles {
		if !strings.HasSuffix(f, "_test.go") {
			use |= li.use[f]
		}
	}
	return use
}

func (li *info) strippedAny(p *packages.Package) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	for _, f := range p.CompiledGoFiles {
		if li.stripped[f] {
			return true
		}
	}
	return false
}
