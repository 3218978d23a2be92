package xbtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/testkit"
)

// A build error of the rewritten code, when the package itself builds, is
// reported as xbtest's, with what the rewrite made of the line.
func TestRewriteBrokeIsOurs(t *testing.T) {
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":      "module example.com/rb\n\ngo 1.22\n",
		"a/a.go":      "package a\n\nfunc F() int {\n\treturn 1\n}\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
	})
	orig := filepath.Join(dir, "a", "a.go")
	rw := filepath.Join(t.TempDir(), "a.go")
	os.WriteFile(rw, []byte("//line "+orig+":1\npackage a\n\nfunc F() int {\n\treturn _xbBroken(1)\n}\n"), 0o644)
	ov := filepath.Join(t.TempDir(), "overlay.json")
	b, _ := json.Marshal(map[string]any{"Replace": map[string]string{orig: rw}})
	os.WriteFile(ov, b, 0o644)
	plan := &instrument.Plan{Dir: dir, Overlay: ov}
	buildErr := "# example.com/rb/a\na/a.go:4:9: undefined: _xbBroken"
	got := rewriteBroke(t.Context(), plan, instrument.Package{ImportPath: "example.com/rb/a", Dir: filepath.Join(dir, "a")}, nil, t.TempDir(), buildErr)
	if !strings.Contains(got, "a bug of xbtest's rewrite") || !strings.Contains(got, "rewritten as: return _xbBroken(1)") {
		t.Errorf("got %q", got)
	}
	// A package that does not build by itself: its own error.
	os.WriteFile(orig, []byte("package a\n\nfunc F() int {\n\treturn \"x\"\n}\n"), 0o644)
	if got := rewriteBroke(t.Context(), plan, instrument.Package{ImportPath: "example.com/rb/a"}, nil, t.TempDir(), buildErr); got != buildErr {
		t.Errorf("a package that does not build: %q", got)
	}
}

// A build that fails in the go command's setup (a go.sum entry the
// temporary go.mod needs) is not blamed on the rewrite of the code.
func TestBrokenBySaysWhichPartBroke(t *testing.T) {
	setup := "# github.com/sourcegraph/conc/pool\n/m/pool/context_pool_test.go:12: github.com/sourcegraph/conc@v0.3.0 requires\n\tgopkg.in/yaml.v3@v3.0.1 requires\n\tgopkg.in/check.v1@v0.0.0-20161208181325-20d25e280405: missing go.sum entry for go.mod file; to add it:\n\tgo mod download gopkg.in/check.v1\nFAIL\tgithub.com/sourcegraph/conc/pool [setup failed]"
	if got := brokenBy(setup); !strings.Contains(got, "module setup") || strings.Contains(got, "rewrite") {
		t.Errorf("setup failure explained as %q", got)
	}
	compile := "# example.com/p\n./p.go:3:2: undefined: xb.Foo\nFAIL\texample.com/p [build failed]"
	if got := brokenBy(compile); !strings.Contains(got, "bug of xbtest's rewrite") {
		t.Errorf("compile failure explained as %q", got)
	}
}
