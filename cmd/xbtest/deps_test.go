package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
)

const errgroupLostUpdate = `package lu

import "golang.org/x/sync/errgroup"

// Count adds one twice, on two errgroup workers, without a lock.
func Count() int {
	n := 0
	var g errgroup.Group
	for range 2 {
		g.Go(func() error {
			n++
			return nil
		})
	}
	g.Wait()
	return n
}
`

const errgroupLostUpdateTest = `package lu

import "testing"

func TestCount(t *testing.T) {
	if n := Count(); n != 2 {
		t.Fatalf("lost update: n = %d", n)
	}
}
`

// TestDependencyErrgroup: a lost update in code that errgroup's goroutines
// run is found without any flag, since golang.org/x/sync/errgroup, a
// dependency that starts goroutines, is rewritten by default. With
// -instrument-deps=false the goroutines are not controlled, and the output
// says so.
func TestDependencyErrgroup(t *testing.T) {
	gomodcache := strings.TrimSpace(goEnvOf(t, "GOMODCACHE"))
	if _, err := os.Stat(filepath.Join(gomodcache, "golang.org", "x", "sync@v0.24.0", "errgroup")); err != nil {
		t.Skipf("golang.org/x/sync@v0.24.0 is not in the module cache: %v", err)
	}
	gosum, err := os.ReadFile(filepath.Join("..", "..", "instrument", "testdata", "extra", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := testkit.WriteModule(t, map[string]string{
		"go.mod":        "module example.com/lu\n\ngo 1.26.0\n\nrequire golang.org/x/sync v0.24.0\n",
		"go.sum":        string(gosum),
		"lu/lu.go":      errgroupLostUpdate,
		"lu/lu_test.go": errgroupLostUpdateTest,
	})
	t.Setenv("XBTEST_DEPCACHE", t.TempDir())
	status, stdout, stderr := runIn(t, dir, "-json", "-o", t.TempDir(), "./lu")
	if status != exitFindings {
		t.Fatalf("status %d, want 1\n%s\n%s", status, stdout, stderr)
	}
	kinds := map[string]bool{}
	for _, f := range testkit.DecodeEvents(t, stdout).Findings {
		if f.Test == "TestCount" {
			kinds[string(f.Kind)] = true
		}
	}
	if !kinds["race"] && !kinds["assertion"] {
		t.Errorf("findings %v, want the lost update (a race or the assertion)\n%s\n%s", kinds, stdout, stderr)
	}
	if strings.Contains(stderr, "does not control") || strings.Contains(stderr, "not rewritten") {
		t.Errorf("stderr:\n%s", stderr)
	}

	status, stdout, stderr = runIn(t, dir, "-instrument-deps=false", "-o", t.TempDir(), "./lu")
	if status == exitError || !strings.Contains(stderr, "xbtest: not rewritten (it starts goroutines): golang.org/x/sync/errgroup (-instrument-deps=false)\n") {
		t.Errorf("-instrument-deps=false: status %d\n%s\n%s", status, stdout, stderr)
	}
}

func goEnvOf(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
