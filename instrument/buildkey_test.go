package instrument

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xbtest/xbtest/internal/testkit"
	"github.com/xbtest/xbtest/settings"
)

// The build key changes with every input of the rewrite and the build (a
// source file of the package, of a package it imports, of a module that
// replaces a dependency with a directory, the settings the rewrite
// depends on) and with nothing else (a file no build reads, a package the
// tests do not import, how the package is named).
func TestBuildKey(t *testing.T) {
	root := t.TempDir()
	m := testkit.WriteModule(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n\nrequire example.com/c v0.0.0\n\nreplace example.com/c => " + filepath.Join(root, "c") + "\n",
		"a/a.go":      "package a\n\nimport (\n\t\"example.com/c\"\n\t\"example.com/m/b\"\n)\n\nfunc A() int { return b.B() + c.C() }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { A() }\n",
		"b/b.go":      "package b\n\nfunc B() int { return 1 }\n",
		"d/d.go":      "package d\n",
	})
	os.MkdirAll(filepath.Join(root, "c"), 0o755)
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "c", "go.mod"), "module example.com/c\n\ngo 1.22\n")
	write(filepath.Join(root, "c", "c.go"), "package c\n\nfunc C() int { return 2 }\n")
	base := Options{Dir: m, Patterns: []string{"./a"}, Memory: settings.SC}
	key := func(opt Options) string {
		t.Helper()
		k, err := BuildKey(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key(base)
	same := func(what string, opt Options) {
		t.Helper()
		if k := key(opt); k != k0 {
			t.Errorf("%s: the key changed", what)
		}
	}
	changed := func(what string, opt Options) {
		t.Helper()
		k := key(opt)
		if k == k0 {
			t.Errorf("%s: the key did not change", what)
		}
		k0 = k
	}
	same("nothing changed", base)
	same("the package named by its import path", Options{Dir: m, Patterns: []string{"example.com/m/a"}, Memory: settings.SC})
	write(filepath.Join(m, "README"), "not read by a build")
	write(filepath.Join(m, "d", "d.go"), "package d\n\nvar D int\n")
	same("a file no build reads, a package the tests do not import", base)

	write(filepath.Join(m, "a", "a_test.go"), "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { A(); A() }\n")
	changed("a test file edited", base)
	write(filepath.Join(m, "b", "b.go"), "package b\n\nfunc B() int { return 3 }\n")
	changed("an imported package edited", base)
	write(filepath.Join(root, "c", "c.go"), "package c\n\nfunc C() int { return 4 }\n")
	changed("a module replaced by a directory edited", base)

	for what, opt := range map[string]Options{
		"-memory tso":            {Dir: m, Patterns: base.Patterns, Memory: settings.TSO},
		"-tags":                  {Dir: m, Patterns: base.Patterns, Memory: settings.SC, Tags: []string{"x"}},
		"-instrument-deps=false": {Dir: m, Patterns: base.Patterns, Memory: settings.SC, NoDeps: true},
		"-instrument":            {Dir: m, Patterns: base.Patterns, Memory: settings.SC, Extra: []string{"example.com/m/b"}},
		"another package":        {Dir: m, Patterns: []string{"./b"}, Memory: settings.SC},
	} {
		if key(opt) == k0 {
			t.Errorf("%s: the key did not change", what)
		}
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	if key(base) == k0 {
		t.Errorf("GOFLAGS: the key did not change")
	}
}

// A package the go command cannot list has no key: it is built as without
// a cache, and the build says what is wrong.
func TestBuildKeyOfABrokenPackage(t *testing.T) {
	m := testkit.WriteModule(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\nimport \"example.com/m/missing\"\n",
	})
	if k, err := BuildKey(context.Background(), Options{Dir: m, Patterns: []string{"./a"}}); err == nil {
		t.Errorf("key %s, want an error", k)
	}
}
