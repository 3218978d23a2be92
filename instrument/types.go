package instrument

import "go/types"

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
