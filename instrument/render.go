package instrument

import (
	"fmt"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/xbtest/xbtest/instrument/internal/edit"
)

// finish renders the file: it adds the imports and the position table,
// and turns imports the rewrite left unused into blank imports.
func (r *fileRW) finish() ([]byte, error) {
	var trailer string
	if len(r.sites) > 0 {
		lines := make([]string, len(r.sites))
		for i, l := range r.sites {
			lines[i] = strconv.Itoa(int(l))
		}
		exprs := make([]string, len(r.siteExprs))
		for i, e := range r.siteExprs {
			exprs[i] = quote(e)
		}
		reg := fmt.Sprintf("%s(%s(%s, %s), %s)", r.X("RegisterExprs"), r.X("RegisterPositions"), quote(r.path), strings.Join(lines, ", "), strings.Join(exprs, ", "))
		if len(r.racyAt) > 0 {
			at, why := make([]string, len(r.racyAt)), make([]string, len(r.racyWhy))
			for i, k := range r.racyAt {
				at[i], why[i] = strconv.Itoa(int(k)), quote(r.racyWhy[i])
			}
			reg = fmt.Sprintf("%s(%s, []int32{%s}, []string{%s})", r.X("RegisterRacy"), reg, strings.Join(at, ", "), strings.Join(why, ", "))
		}
		trailer = fmt.Sprintf("var %s = %s\n", r.posVar, reg)
	}
	// A walk may have asked for a name whose text it then dropped (the
	// allocation of a variable an if statement's init declares): import
	// only what the text uses.
	if r.usesXB || r.usesUnsafe {
		out, _, err := r.render(trailer)
		if err != nil {
			return nil, err
		}
		r.usesXB = r.usesXB && usesName(out, r.xb)
		r.usesUnsafe = r.usesUnsafe && usesName(out, "_xbunsafe")
	}
	var imps []string
	if r.usesXB {
		imps = append(imps, fmt.Sprintf("import %s %s", r.xb, quote(schedulerPath)))
	}
	if r.usesUnsafe {
		imps = append(imps, `import _xbunsafe "unsafe"`)
	}
	if len(imps) > 0 {
		r.ed.Insert(r.file.Name.End(), "; "+strings.Join(imps, "; "))
	}
	out, emitted, err := r.render(trailer)
	if err != nil {
		return nil, err
	}
	if r.blankUnusedImports(emitted) {
		out, _, err = r.render(trailer)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *fileRW) render(trailer string) ([]byte, [][2]int, error) {
	out, emitted, err := r.ed.Render(r.path, trailer)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", r.path, err)
	}
	return out, emitted, nil
}

// blankUnusedImports turns each import whose every use the rewrite removed
// (sync once sync.Mutex became xb.Mutex, testing once the benchmarks are
// gone) into a blank import, which keeps its initialization.
func (r *fileRW) blankUnusedImports(emitted [][2]int) bool {
	// Text rendered twice (x in x op= y) gives overlapping ranges: merge
	// them, so that they can be searched.
	sort.Slice(emitted, func(i, j int) bool { return emitted[i][0] < emitted[j][0] })
	var merged [][2]int
	for _, e := range emitted {
		if n := len(merged); n > 0 && e[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], e[1])
			continue
		}
		merged = append(merged, e)
	}
	emitted = merged
	kept := func(p token.Pos) bool {
		o := r.ed.Off(p)
		i := sort.Search(len(emitted), func(i int) bool { return emitted[i][1] > o })
		return i < len(emitted) && emitted[i][0] <= o
	}
	used := map[*types.PkgName]bool{}
	for id, obj := range r.info.Uses {
		if pn, ok := obj.(*types.PkgName); ok && id.Pos().IsValid() && r.fset.File(id.Pos()) == r.fset.File(r.file.Pos()) && kept(id.Pos()) {
			used[pn] = true
		}
	}
	changed := false
	for _, spec := range r.file.Imports {
		if spec.Name != nil && (spec.Name.Name == "_" || spec.Name.Name == ".") {
			continue
		}
		pn := r.info.PkgNameOf(spec)
		if pn == nil || used[pn] {
			continue
		}
		if spec.Name != nil {
			r.ed.Replace(spec.Name, edit.Lit("_"))
		} else {
			r.ed.Insert(spec.Path.Pos(), "_ ")
		}
		changed = true
	}
	return changed
}

// usesName reports whether src has a selector name.X.
func usesName(src []byte, name string) bool {
	return regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\.`).Match(src)
}

// quote returns a Go string literal.
func quote(s string) string { return strconv.Quote(s) }
