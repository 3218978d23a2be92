package instrument

import (
	"context"

	"github.com/xbtest/xbtest/instrument/internal/buildkey"
)

// BuildKey returns a key of everything Prepare and the builds of its plan
// depend on, so that what they made can be kept (package
// internal/buildcache) and used again while the key is the same: the
// command's own executable (the rewriter and everything it links), the
// scheduler source the rewritten code links, the whole of `go env`
// (toolchain, target, GOFLAGS, C toolchain, main module, workspace), the
// options that change the rewrite (the memory model, the tags, Extra,
// NoDeps), the packages the patterns match, and for every package in the
// build of their tests (`go list -deps -test`): its module's version, and
// unless it is of the standard library or of the module cache (where the
// version says what the files are), the content of each of its files, and
// the go.mod, go.sum and go.work files of the modules outside the module
// cache. It costs a go list (no type checking) and reading the files.
//
// An error says the build cannot be keyed (the go command cannot list a
// package): the caller then builds as if there were no cache, and reports
// what Prepare says.
func BuildKey(ctx context.Context, opt Options) (string, error) {
	return buildkey.Key(ctx, buildkey.Inputs{Dir: opt.Dir, Patterns: opt.Patterns, Extra: opt.Extra, Tags: opt.Tags,
		Memory: opt.Memory, NoDeps: opt.NoDeps, Rewriter: rewriterHash()})
}
