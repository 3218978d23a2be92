package build

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestVendoredModules reads a vendor/modules.txt: modules replaced by a
// directory are left out, a replacement by another module is to be
// dropped, go versions come from the ## lines.
func TestVendoredModules(t *testing.T) {
	dir := t.TempDir()
	txt := `# example.com/dep v1.0.0
## explicit; go 1.21
example.com/dep
# example.com/old v0.1.0
## explicit
example.com/old
# example.com/local v0.0.0 => ../local
## explicit; go 1.22
example.com/local
# example.com/repl v1.2.0 => example.com/fork v1.3.0
## explicit; go 1.20
example.com/repl
`
	if err := os.MkdirAll(filepath.Join(dir, "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vendor", "modules.txt"), []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := vendoredModules(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []vendored{
		{path: "example.com/dep", version: "v1.0.0", goVersion: "1.21"},
		{path: "example.com/old", version: "v0.1.0"},
		{path: "example.com/repl", version: "v1.2.0", goVersion: "1.20", dropReplace: "example.com/repl@v1.2.0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("vendoredModules:\n got %+v\nwant %+v", got, want)
	}
}

func TestModulePath(t *testing.T) {
	for gomod, want := range map[string]string{
		"// comment\nmodule example.com/a\n\ngo 1.21\n": "example.com/a",
		"module \"example.com/b\"\n":                    "example.com/b",
		"go 1.21\n":                                     "",
	} {
		if got := modulePath([]byte(gomod)); got != want {
			t.Errorf("modulePath(%q) = %q, want %q", gomod, got, want)
		}
	}
}
