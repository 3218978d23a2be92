package build

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// setupWorkspace does for workspace mode what the temporary go.mod does
// otherwise (-modfile cannot be used there): a copy of go.work, with its
// directories made absolute, uses the scheduler's copy and replaces the
// copied modules; GOWORK names it.
func (ws *Workspace) setupWorkspace(ctx context.Context, gowork string, needXB bool) (*ModSetup, error) {
	dir := filepath.Join(ws.tmp, "work")
	data, err := os.ReadFile(gowork)
	if err != nil {
		return nil, fmt.Errorf("instrument: %v", err)
	}
	work := filepath.Join(dir, "go.work")
	if err := writeFile(work, data); err != nil {
		return nil, err
	}
	if sum, err := os.ReadFile(gowork + ".sum"); err == nil {
		if err := writeFile(work+".sum", sum); err != nil {
			return nil, err
		}
	}
	out, err := RunGo(ctx, dir, "work", "edit", "-json", work)
	if err != nil {
		return nil, err
	}
	var wf struct {
		Go      string
		Use     []struct{ DiskPath string }
		Replace []struct {
			Old struct{ Path, Version string }
			New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &wf); err != nil {
		return nil, fmt.Errorf("instrument: go work edit: %v", err)
	}
	base := filepath.Dir(gowork)
	args := []string{"work", "edit"}
	for _, u := range wf.Use {
		abs := u.DiskPath
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
			args = append(args, "-dropuse="+u.DiskPath, "-use="+abs)
		}
		if m, err := os.ReadFile(filepath.Join(abs, "go.mod")); err == nil && modulePath(m) == xbModule {
			needXB = false // the workspace has xbtest already
		}
	}
	for _, r := range wf.Replace {
		if r.New.Version == "" && !filepath.IsAbs(r.New.Path) {
			old := r.Old.Path
			if r.Old.Version != "" {
				old += "@" + r.Old.Version
			}
			args = append(args, "-replace="+old+"="+filepath.Join(base, r.New.Path))
		}
	}
	if needXB {
		st, err := ws.stripped(wf.Go)
		if err != nil {
			return nil, err
		}
		args = append(args, "-use="+st)
	}
	for _, c := range ws.copies {
		args = append(args, "-replace="+c.path+"="+c.to)
	}
	args = append(args, work)
	if _, err := RunGo(ctx, dir, args...); err != nil {
		return nil, err
	}
	return &ModSetup{Env: []string{"GOWORK=" + work}}, nil
}

// modulePath returns the module path a go.mod declares.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
