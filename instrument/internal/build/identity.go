package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// GoEnvJSON is the whole of `go env -json` in dir: every setting of the
// go command that may change what it builds (toolchain, target, GOFLAGS,
// C compilers and flags, the main module, the workspace).
func GoEnvJSON(ctx context.Context, dir string) ([]byte, error) {
	return RunGo(ctx, dir, "env", "-json")
}

// OwnHash identifies this version of this package, which copies the
// scheduler and the modules a build rewrites.
func OwnHash() string { return sourceHash() }

// SourceKey identifies the scheduler source rewritten code links: the
// files of its packages in xbtest's module (those SetupModule copies),
// and the versions of the other modules it imports.
func (xb *XBTest) SourceKey() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "go %s\n", xb.goVersion)
	for _, p := range xb.pkgs {
		if p.Module == nil || p.Module.Path != xbModule {
			if p.Module != nil {
				fmt.Fprintf(h, "pkg %s %s@%s\n", p.ImportPath, p.Module.Path, p.Module.Version)
			}
			continue
		}
		srcs, err := sourceFiles(p.Dir)
		if err != nil {
			return "", err
		}
		for _, s := range srcs {
			data, err := os.ReadFile(s)
			if err != nil {
				return "", fmt.Errorf("instrument: %v", err)
			}
			fmt.Fprintf(h, "file %s %s %d\n", p.ImportPath, filepath.Base(s), len(data))
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
