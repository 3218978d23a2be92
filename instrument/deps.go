package instrument

import (
	"context"
	"embed"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/xbtest/xbtest/instrument/internal/build"
	"golang.org/x/tools/go/packages"
)

// Dependencies. Besides the targets and the packages of their modules, every
// package of another module in the build of the tests whose code starts
// goroutines or synchronizes is rewritten by default, so that a worker
// pool's goroutines that run the user's code are controlled. Which ones is
// decided from a scan of their syntax while they load (scanFile): packages
// that only compute are left alone. The module cache's files load without
// function bodies (load.go); those of the packages to rewrite are loaded
// again with their bodies, on their own, with the export data of their
// imports (loadBodies). Rewritten modules of the module cache are kept in a
// persistent cache (build.DepCache, keyed in part by depCacheKey). A
// dependency that cannot be rewritten, or whose rewrite does not compile
// (checkDeps), is left alone and named in Plan.Deps: the run goes on
// without it.

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
	"time":    set("Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc"),
	"context": set("WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause"),
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

// loadInfo is what load learns of the files it parses.
type loadInfo struct {
	mu       sync.Mutex
	use      map[string]depUse       // by file name, outside the standard library
	sums     map[string]*fileSummary // by file name, outside the standard library
	stripped map[string]bool         // files whose function bodies were dropped
}

func (li *loadInfo) record(file string, use depUse, sum *fileSummary, stripped bool) {
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
func (li *loadInfo) pkgUse(p *packages.Package) depUse {
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

func (li *loadInfo) strippedAny(p *packages.Package) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	for _, f := range p.CompiledGoFiles {
		if li.stripped[f] {
			return true
		}
	}
	return false
}

// bodyLoader loads packages whose files load stripped their function bodies
// again, with bodies, each on its own: their imports come from export data,
// which is much cheaper than type-checking the whole build from source
// again.
type bodyLoader struct {
	opt     Options
	modFile string
	loaded  map[string]*packages.Package
	failed  map[string]string
}

// load loads those of paths not loaded yet; it returns why a package could
// not be loaded, by path.
func (bl *bodyLoader) load(ctx context.Context, paths []string) map[string]string {
	if bl.loaded == nil {
		bl.loaded, bl.failed = map[string]*packages.Package{}, map[string]string{}
	}
	var need []string
	for _, p := range paths {
		if bl.loaded[p] == nil && bl.failed[p] == "" {
			need = append(need, p)
		}
	}
	if len(need) > 0 {
		cfg := &packages.Config{
			Context: ctx,
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
				packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
			Dir: bl.opt.Dir,
		}
		if len(bl.opt.Tags) > 0 {
			cfg.BuildFlags = []string{"-tags=" + strings.Join(bl.opt.Tags, ",")}
		}
		if bl.modFile != "" {
			cfg.BuildFlags = append(cfg.BuildFlags, "-modfile="+bl.modFile)
		}
		pkgs, err := packages.Load(cfg, need...)
		for _, p := range pkgs {
			if e := compileErrors(p); e != nil {
				_, detail, _ := strings.Cut(e.Error(), "\n")
				bl.failed[p.PkgPath] = "does not load: " + firstLine(detail)
				continue
			}
			bl.loaded[p.PkgPath] = p
		}
		for _, p := range need {
			if bl.loaded[p] == nil && bl.failed[p] == "" {
				why := "does not load"
				if err != nil {
					why += ": " + firstLine(err.Error())
				}
				bl.failed[p] = why
			}
		}
	}
	out := map[string]string{}
	for _, p := range paths {
		if why := bl.failed[p]; why != "" {
			out[p] = why
		}
	}
	return out
}

// checkDeps compiles packages with the plan, as go test will, and returns
// those that do not compile, with the first error. The compiled packages
// stay in the build cache for go test. A failure that names none of them
// is logged (go test reports it), and ok is false.
func checkDeps(ctx context.Context, plan *Plan, paths []string, logf func(string, ...any)) (failed map[string]string, ok bool, err error) {
	args := []string{"build"}
	for _, a := range plan.BuildArgs {
		if a != "-vet=off" {
			args = append(args, a)
		}
	}
	args = append(args, paths...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), plan.Env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil, true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	failed = map[string]string{}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	cur := ""
	for _, l := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(l, "# "); ok {
			cur = strings.Fields(h + " ")[0]
			continue
		}
		if cur != "" && want[cur] && failed[cur] == "" && strings.TrimSpace(l) != "" {
			failed[cur] = strings.TrimSpace(shortenPath(l))
		}
	}
	if len(failed) == 0 {
		logf("instrument: go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return failed, false, nil
}

// shortenPath cuts an error line's file name to its base name.
func shortenPath(l string) string {
	if i := strings.Index(l, ".go:"); i >= 0 {
		if j := strings.LastIndexAny(l[:i], `/\`); j >= 0 {
			return l[j+1:]
		}
	}
	return l
}

// depSummary logs what happened to the dependencies.
func depSummary(deps []*Dep, logf func(string, ...any)) {
	var rw, cached, left []string
	for _, d := range deps {
		switch {
		case d.Rewritten && d.Cached:
			cached = append(cached, d.Path)
		case d.Rewritten:
			rw = append(rw, d.Path)
		default:
			left = append(left, fmt.Sprintf("%s (%s; %s)", d.Path, d.Uses, d.Why))
		}
	}
	sort.Strings(rw)
	if len(rw)+len(cached) > 0 {
		logf("instrument: dependencies rewritten: %d now %v, %d from the cache %v", len(rw), rw, len(cached), cached)
	}
	if len(left) > 0 {
		logf("instrument: dependencies not rewritten: %s", strings.Join(left, ", "))
	}
}

//go:embed *.go
var ownSource embed.FS

// rewriterHash identifies this version of the rewriter: a hash of the
// package's own source files (package build hashes its own).
var rewriterHash = sync.OnceValue(func() string { return build.SourceHash(ownSource) })

// depCacheKey is what identifies the rewrite in the key of every entry of
// the persistent cache of rewritten modules: the rewriter's version, the
// build tags and the memory model.
func depCacheKey(opt Options) string {
	tags := append([]string(nil), opt.Tags...)
	sort.Strings(tags)
	return strings.Join([]string{"rewriter " + rewriterHash(), "tags " + strings.Join(tags, ","), "memory " + opt.Memory.String()}, "\n")
}
