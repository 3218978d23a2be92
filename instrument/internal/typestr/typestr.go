// Package typestr writes types of the original program as the generated
// helper file of a rewritten package names them: a file whose Go version
// predates generics calls a non-generic wrapper per instantiation of a
// helper, and the wrapper's signature spells the type arguments (package
// instrument, helpers.go).
//
// An Imports belongs to one generated file: TypeString writes a type as a
// type expression valid at package level of that file, with an import of
// a private name (_xbi0, _xbi1 ...) for each other package it names
// (Decls lists them), or says why the type cannot be named there (an
// unexported type of another package, a type declared inside a function,
// a type parameter). The sync, sync/atomic and testing types that a
// rewritten package spells are the scheduler's in the rewritten program,
// so TypeString writes them so too (Scheduler.Replaced).
package typestr

import (
	"fmt"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// Scheduler is the package rewritten code calls, as generated files name
// it.
type Scheduler struct {
	Path string // its import path
	Name string // the name generated files import it as
	// Replaced are, by package path, the names of the identifiers of the
	// standard library that rewritten code spells as the scheduler's
	// (sync.Mutex is the scheduler's Mutex).
	Replaced map[string]map[string]bool
}

// Imports collects the imports a generated file needs to name types of
// other packages; each gets a private name.
type Imports struct {
	self      *types.Package
	sched     Scheduler
	byPath    map[string]string
	Rewritten map[string]bool // the packages rewritten (their sync types are the scheduler's)
}

// NewImports returns the Imports of a generated file of package self.
func NewImports(self *types.Package, sched Scheduler) *Imports {
	return &Imports{self: self, sched: sched, byPath: map[string]string{}}
}

func (s *Imports) name(p *types.Package) string {
	if p == s.self {
		return ""
	}
	if p.Path() == s.sched.Path {
		return s.sched.Name
	}
	if n, ok := s.byPath[p.Path()]; ok {
		return n
	}
	n := "_xbi" + strconv.Itoa(len(s.byPath))
	s.byPath[p.Path()] = n
	return n
}

// Decls returns the import lines: name and quoted path.
func (s *Imports) Decls() []string {
	var out []string
	for path, n := range s.byPath {
		out = append(out, fmt.Sprintf("%s %s", n, strconv.Quote(path)))
	}
	sort.Strings(out)
	return out
}

// TypeString writes t as a type expression valid at package level of a file
// of s.self with the imports of s, or explains why t cannot be named there
// (an unexported type of another package, a type declared inside a
// function, a type parameter).
//
// t is a type of the original program; the wrapper that names it is
// compiled with the rewritten one, where the sync, sync/atomic and testing
// types that rewritten packages spell are the scheduler's (sync.Mutex is
// xb.Mutex, *testing.T is *xb.T; see Scheduler.Replaced). So they are printed as
// the scheduler's too, anywhere in t (struct{ sync.Mutex; n int },
// chan *testing.T, map[string]*sync.WaitGroup), except inside the struct
// fields, parameters and methods a package that is not rewritten declares.
func (s *Imports) TypeString(t types.Type) (string, error) {
	if err := s.nameable(t, map[types.Type]bool{}); err != nil {
		return "", err
	}
	var b strings.Builder
	s.write(&b, t, true)
	return b.String(), nil
}

// declRewritten reports whether the object (a field, parameter or method)
// was declared by a rewritten package, so that the types it spells are
// rewritten; inherited says so for objects of no package.
func (s *Imports) declRewritten(obj types.Object, inherited bool) bool {
	if obj.Pkg() == nil {
		return inherited
	}
	return obj.Pkg() == s.self || s.Rewritten[obj.Pkg().Path()]
}

// write prints t as types.TypeString does with the qualifier s.name, and
// the scheduler's types for those a rewritten package's source names (rw).
func (s *Imports) write(b *strings.Builder, t types.Type, rw bool) {
	switch t := t.(type) {
	case *types.Basic:
		b.WriteString(t.Name())
	case *types.Pointer:
		b.WriteString("*")
		s.write(b, t.Elem(), rw)
	case *types.Slice:
		b.WriteString("[]")
		s.write(b, t.Elem(), rw)
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		s.write(b, t.Elem(), rw)
	case *types.Map:
		b.WriteString("map[")
		s.write(b, t.Key(), rw)
		b.WriteString("]")
		s.write(b, t.Elem(), rw)
	case *types.Chan:
		paren := false
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
			// chan (<-chan T), not (chan <-)chan T
			if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
				paren = true
			}
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		if paren {
			b.WriteString("(")
		}
		s.write(b, t.Elem(), rw)
		if paren {
			b.WriteString(")")
		}
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			s.write(b, f.Type(), s.declRewritten(f, rw))
			if tag := t.Tag(i); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString("}")
	case *types.Signature:
		b.WriteString("func")
		s.signature(b, t, rw)
	case *types.Interface:
		b.WriteString("interface{")
		first := true
		sep := func() {
			if !first {
				b.WriteString("; ")
			}
			first = false
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			sep()
			b.WriteString(m.Name())
			s.signature(b, m.Type().(*types.Signature), s.declRewritten(m, rw))
		}
		for i := range t.NumEmbeddeds() {
			sep()
			s.write(b, t.EmbeddedType(i), rw)
		}
		b.WriteString("}")
	case *types.Tuple:
		b.WriteString("(")
		for i := range t.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			s.write(b, t.At(i).Type(), s.declRewritten(t.At(i), rw))
		}
		b.WriteString(")")
	case *types.Named:
		s.typeName(b, t.Obj(), t.TypeArgs(), rw)
	case *types.Alias:
		s.typeName(b, t.Obj(), t.TypeArgs(), rw)
	default:
		b.WriteString(types.TypeString(t, s.name))
	}
}

// signature prints a function's parameters and results.
func (s *Imports) signature(b *strings.Builder, sig *types.Signature, rw bool) {
	params := sig.Params()
	b.WriteString("(")
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		p := params.At(i)
		prw := s.declRewritten(p, rw)
		if sig.Variadic() && i == params.Len()-1 {
			b.WriteString("...")
			if sl, ok := p.Type().(*types.Slice); ok {
				s.write(b, sl.Elem(), prw)
				continue
			}
		}
		s.write(b, p.Type(), prw)
	}
	b.WriteString(")")
	res := sig.Results()
	switch res.Len() {
	case 0:
	case 1:
		if res.At(0).Name() == "" {
			b.WriteString(" ")
			s.write(b, res.At(0).Type(), s.declRewritten(res.At(0), rw))
			break
		}
		fallthrough
	default:
		b.WriteString(" ")
		s.write(b, res, rw)
	}
}

// typeName prints a named type or an alias, the scheduler's in place of a
// type the rewrite replaces.
func (s *Imports) typeName(b *strings.Builder, obj *types.TypeName, targs *types.TypeList, rw bool) {
	if p := obj.Pkg(); p != nil && rw && s.sched.Replaced[p.Path()][obj.Name()] && obj.Parent() == p.Scope() {
		b.WriteString(s.sched.Name + "." + obj.Name())
	} else {
		if p := obj.Pkg(); p != nil {
			if q := s.name(p); q != "" {
				b.WriteString(q + ".")
			}
		}
		b.WriteString(obj.Name())
	}
	if targs != nil && targs.Len() > 0 {
		b.WriteString("[")
		for i := range targs.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			s.write(b, targs.At(i), rw)
		}
		b.WriteString("]")
	}
}

func (s *Imports) nameable(t types.Type, seen map[types.Type]bool) error {
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
	case *types.Alias, *types.Named:
		// Both name an object and may carry type arguments.
		n := t.(interface {
			Obj() *types.TypeName
			TypeArgs() *types.TypeList
		})
		if err := s.objNameable(n.Obj()); err != nil {
			return err
		}
		if ta := n.TypeArgs(); ta != nil {
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

func (s *Imports) objNameable(obj *types.TypeName) error {
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
