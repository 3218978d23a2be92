package instrument

import (
	"fmt"
	"go/types"
	"sort"
	"strconv"
)

// importSet collects the imports a generated file needs to name types of
// other packages; each gets a private name.
type importSet struct {
	self   *types.Package
	byPath map[string]string
}

func newImportSet(self *types.Package) *importSet {
	return &importSet{self: self, byPath: map[string]string{}}
}

func (s *importSet) name(p *types.Package) string {
	if p == s.self {
		return ""
	}
	if n, ok := s.byPath[p.Path()]; ok {
		return n
	}
	n := "_xbi" + strconv.Itoa(len(s.byPath))
	s.byPath[p.Path()] = n
	return n
}

// decls returns the import lines.
func (s *importSet) decls() []string {
	var out []string
	for path, n := range s.byPath {
		out = append(out, fmt.Sprintf("%s %s", n, strconv.Quote(path)))
	}
	sort.Strings(out)
	return out
}

// typeString writes t as a type expression valid at package level of a file
// of s.self with the imports of s, or explains why t cannot be named there
// (an unexported type of another package, a type declared inside a
// function, a type parameter).
func (s *importSet) typeString(t types.Type) (string, error) {
	if err := s.nameable(t, map[types.Type]bool{}); err != nil {
		return "", err
	}
	return types.TypeString(t, func(p *types.Package) string { return s.name(p) }), nil
}

func (s *importSet) nameable(t types.Type, seen map[types.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return fmt.Errorf("unsafe.Pointer")
		}
		if t.Info()&types.IsUntyped != 0 {
			return fmt.Errorf("untyped %s", t)
		}
		return nil
	case *types.Alias:
		if err := s.objNameable(t.Obj()); err != nil {
			return err
		}
		if ta := t.TypeArgs(); ta != nil {
			for i := range ta.Len() {
				if err := s.nameable(ta.At(i), seen); err != nil {
					return err
				}
			}
		}
		return nil
	case *types.Named:
		if err := s.objNameable(t.Obj()); err != nil {
			return err
		}
		if ta := t.TypeArgs(); ta != nil {
			for i := range ta.Len() {
				if err := s.nameable(ta.At(i), seen); err != nil {
					return err
				}
			}
		}
		return nil
	case *types.TypeParam:
		return fmt.Errorf("type parameter %s", t)
	case *types.Pointer:
		return s.nameable(t.Elem(), seen)
	case *types.Slice:
		return s.nameable(t.Elem(), seen)
	case *types.Array:
		return s.nameable(t.Elem(), seen)
	case *types.Chan:
		return s.nameable(t.Elem(), seen)
	case *types.Map:
		if err := s.nameable(t.Key(), seen); err != nil {
			return err
		}
		return s.nameable(t.Elem(), seen)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				if err := s.nameable(tup.At(i).Type(), seen); err != nil {
					return err
				}
			}
		}
		return nil
	case *types.Struct:
		for i := range t.NumFields() {
			f := t.Field(i)
			if !f.Exported() && f.Pkg() != s.self {
				return fmt.Errorf("struct with unexported field %s of package %s", f.Name(), f.Pkg().Path())
			}
			if err := s.nameable(f.Type(), seen); err != nil {
				return err
			}
		}
		return nil
	case *types.Interface:
		for i := range t.NumMethods() {
			m := t.Method(i)
			if !m.Exported() && m.Pkg() != s.self {
				return fmt.Errorf("interface with unexported method %s", m.Name())
			}
			if err := s.nameable(m.Type(), seen); err != nil {
				return err
			}
		}
		for i := range t.NumEmbeddeds() {
			if err := s.nameable(t.EmbeddedType(i), seen); err != nil {
				return err
			}
		}
		return nil
	case *types.Tuple:
		for i := range t.Len() {
			if err := s.nameable(t.At(i).Type(), seen); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("type %s", t)
}

func (s *importSet) objNameable(obj *types.TypeName) error {
	if obj.Pkg() == nil {
		return nil // predeclared (error, comparable, any)
	}
	if obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() {
		return fmt.Errorf("type %s is declared inside a function", obj.Name())
	}
	if obj.Parent() == nil && obj.Pkg() == s.self {
		return fmt.Errorf("type %s is declared inside a function", obj.Name())
	}
	if obj.Pkg() != s.self && !obj.Exported() {
		return fmt.Errorf("type %s.%s is not exported", obj.Pkg().Path(), obj.Name())
	}
	return nil
}

// under returns the underlying type of t, or the core type of a type
// parameter.
func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return coreType(tp)
	}
	return t.Underlying()
}

// coreType returns the single underlying type of a type parameter's type
// set, or nil.
func coreType(tp *types.TypeParam) types.Type {
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var core types.Type
	for i := range iface.NumEmbeddeds() {
		u, ok := iface.EmbeddedType(i).(*types.Union)
		if !ok {
			t := iface.EmbeddedType(i).Underlying()
			if _, isIface := t.(*types.Interface); isIface {
				continue
			}
			if core != nil && !types.Identical(core, t) {
				return nil
			}
			core = t
			continue
		}
		for j := range u.Len() {
			t := u.Term(j).Type().Underlying()
			if core != nil && !types.Identical(core, t) {
				return nil
			}
			core = t
		}
	}
	return core
}
