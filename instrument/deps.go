package instrument

import (
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"github.com/xbtest/xbtest/instrument/internal/build"
)

// Dependencies. Besides the targets and the packages of their modules, every
// package of another module in the build of the tests whose code starts
// goroutines or synchronizes is rewritten by default, so that a worker
// pool's goroutines that run the user's code are controlled. Which ones is
// package load's choice (Result.Select), from a scan of their syntax while
// they load; the module cache's files load without function bodies, and
// those of the packages to rewrite are loaded again with their bodies
// (load.Bodies). Rewritten modules of the module cache are kept in a
// persistent cache (build.DepCache, keyed in part by depCacheKey). A
// dependency that cannot be rewritten, or whose rewrite does not compile
// (checkDeps), is left alone and named in Plan.Deps: the run goes on
// without it.

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
func depSummary(deps []Dep, logf func(string, ...any)) {
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

// firstLine is the first line of a message.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

//go:embed *.go internal/edit/*.go internal/load/*.go internal/typestr/*.go
var ownSource embed.FS

// rewriterHash identifies this version of the rewriter: a hash of the
// source files of the package and of the internal packages that decide
// what it rewrites and how (package build hashes its own).
var rewriterHash = sync.OnceValue(func() string { return build.SourceHash(ownSource) })

// depCacheKey is what identifies the rewrite in the key of every entry of
// the persistent cache of rewritten modules: the rewriter's version, the
// build tags and the memory model.
func depCacheKey(opt Options) string {
	tags := append([]string(nil), opt.Tags...)
	sort.Strings(tags)
	return strings.Join([]string{"rewriter " + rewriterHash(), "tags " + strings.Join(tags, ","), "memory " + opt.Memory.String()}, "\n")
}
