package build

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// VendorMode reports whether the go command builds main from vendor/.
func (env *Env) VendorMode(main *packages.Module) bool {
	if _, err := os.Stat(filepath.Join(main.Dir, "vendor", "modules.txt")); err != nil {
		return false
	}
	for _, f := range strings.Fields(env.GOFLAGS) {
		if f == "-mod=mod" || f == "-mod=readonly" {
			return false
		}
	}
	return main.GoVersion == "" || !VersionLess(main.GoVersion, "1.14")
}

// vendored is a module of vendor/modules.txt that the build takes from
// vendor/.
type vendored struct {
	path, version string
	goVersion     string
	dropReplace   string // a replacement by another module go.mod makes, which ours must override
}

// vendoredModules reads vendor/modules.txt. Modules go.mod replaces by a
// directory are left out: in module mode they come from that directory.
func vendoredModules(modDir string) ([]vendored, error) {
	data, err := os.ReadFile(filepath.Join(modDir, "vendor", "modules.txt"))
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	var out []vendored
	skip := false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "# "):
			f := strings.Fields(l[2:])
			k := slices.Index(f, "=>")
			skip = len(f) == 0 || k >= 0 && len(f)-k-1 == 1
			if skip {
				continue
			}
			m := vendored{path: f[0]}
			if k != 1 && len(f) > 1 {
				m.version = f[1]
			}
			if k >= 0 {
				m.dropReplace = f[0]
				if m.version != "" {
					m.dropReplace += "@" + m.version
				}
			}
			out = append(out, m)
		case strings.HasPrefix(l, "## ") && len(out) > 0 && !skip:
			for _, a := range strings.Split(l[3:], ";") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(a), "go "); ok {
					out[len(out)-1].goVersion = v
				}
			}
		}
	}
	return out, nil
}
