package main

import (
	"os"
	"strings"
	"testing"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/internal/buildcache"
	"github.com/xbtest/xbtest/internal/testkit"
)

// The command's tests, and the commands they start, run without the build
// cache: what they check is each run's own rewrite and build, and the
// user's cache is not theirs to fill. The cache's own tests give it a fresh
// directory (TestBuildCacheReusesTheTestBinary, package xbtest).
func init() { os.Setenv(buildcache.EnvDir, buildcache.Off) }

// A package whose test binary came from the build cache says so, in text
// and in -json.
func TestCachedBuildIsReported(t *testing.T) {
	p := &xbtest.Package{ImportPath: "example.com/p", CachedBuild: true, Tests: []*xbtest.Test{{Name: "TestX"}}}
	var text, js strings.Builder
	(&reporter{out: &text, o: &options{}}).pkgDone(p, exitOK)
	(&reporter{out: &js, o: &options{json: true}}).pkgDone(p, exitOK)
	if !strings.Contains(text.String(), "[build cached]") {
		t.Errorf("text: %q", text.String())
	}
	if ev := testkit.DecodeEvents(t, js.String()); ev.Packages["example.com/p"] == nil || !ev.Packages["example.com/p"].CachedBuild {
		t.Errorf("-json: %q", js.String())
	}
	p.CachedBuild, p.Examples = false, 2
	text.Reset()
	(&reporter{out: &text, o: &options{}}).pkgDone(p, exitOK)
	if strings.Contains(text.String(), "cached") {
		t.Errorf("text of a package built now: %q", text.String())
	}
	// Examples go test would run are not run, and the line says so.
	if !strings.Contains(text.String(), "[2 examples not run: xbtest explores tests]") {
		t.Errorf("examples not said: %q", text.String())
	}
	js.Reset()
	(&reporter{out: &js, o: &options{json: true}}).pkgDone(p, exitOK)
	if !strings.Contains(js.String(), `"examples_not_run":2`) {
		t.Errorf("-json examples: %q", js.String())
	}
}

// -cache off, a directory, or the default ($XBTEST_CACHE).
func TestCacheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"-cache", "off"}, "/elsewhere", ""},
		{[]string{"-cache", "/c"}, "off", "/c"},
		{nil, "/elsewhere", "/elsewhere"},
		{nil, "off", ""},
	} {
		t.Setenv(buildcache.EnvDir, c.env)
		o, err := parseFlags(c.args, &strings.Builder{})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.apiOptions(nil).BuildCache; got != c.want {
			t.Errorf("%v with %s=%s: build cache %q, want %q", c.args, buildcache.EnvDir, c.env, got, c.want)
		}
	}
}
