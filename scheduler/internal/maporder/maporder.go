// Package maporder fixes the order in which rewritten code iterates over
// maps. Map iteration order must be fixed by the schedule, or a replayed
// execution would not see what the recorded one saw. The rewriter turns
// `for k, v := range m` into a loop over the sorted keys (the helper file's
// _xbMapIter, which calls package scheduler's SortKeys), and redirects
// maps.Keys, maps.Values and maps.All, whose iterators the standard library
// would run in the runtime's random order, to scheduler's MapsKeys,
// MapsValues and MapsAll. All four forward here. Code that is not rewritten
// (reflect.Value.MapRange, a library ranging over a map it was given) keeps
// the runtime's order.
//
// The order is a property of the keys alone, the same in every execution
// and outside any: it needs nothing of the engine.
package maporder

import (
	"iter"
	"reflect"
	"sort"
	"strings"
	"unsafe"
)

// SortKeys sorts map keys into the fixed order of rewritten map loops: by
// value where the type has an order (numbers, strings, and arrays, structs
// and interfaces of those, field by field); keys that only compare by
// address keep an order that depends on addresses: pointers, and channels
// other than those rewritten code made (see ChanRank).
func SortKeys[K comparable](keys []K) {
	switch ks := any(keys).(type) {
	case []string:
		sort.Strings(ks)
		return
	case []int:
		sort.Ints(ks)
		return
	}
	sort.SliceStable(keys, func(i, j int) bool {
		return compareValues(reflect.ValueOf(&keys[i]).Elem(), reflect.ValueOf(&keys[j]).Elem()) < 0
	})
}

// ChanRank, set by package chanobj, ranks a channel that rewritten code
// made, in the execution under way, by when the execution first used it
// (made it, or adopted one made outside): a map keyed by channels (a set
// of channels to watch) iterates in the order of their making, the same in
// every execution of a schedule, where their addresses are not. ok is
// false outside an execution and for a channel xbtest does not model,
// which sorts after the others, by address.
var ChanRank func(p unsafe.Pointer) (rank int64, ok bool)

// compareValues is a total order on comparable values, by content where
// there is one.
func compareValues(a, b reflect.Value) int {
	cmp := func(less, greater bool) int {
		if less {
			return -1
		}
		if greater {
			return 1
		}
		return 0
	}
	switch a.Kind() {
	case reflect.Bool:
		return cmp(!a.Bool() && b.Bool(), a.Bool() && !b.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp(a.Int() < b.Int(), a.Int() > b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp(a.Uint() < b.Uint(), a.Uint() > b.Uint())
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return cmp(x < y || x != x && y == y, x > y || y != y && x == x)
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		if c := cmp(real(x) < real(y), real(x) > real(y)); c != 0 {
			return c
		}
		return cmp(imag(x) < imag(y), imag(x) > imag(y))
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Chan:
		if ChanRank != nil {
			ra, oka := ChanRank(a.UnsafePointer())
			rb, okb := ChanRank(b.UnsafePointer())
			if oka && okb {
				return cmp(ra < rb, ra > rb)
			}
			if oka != okb {
				return cmp(oka, okb)
			}
		}
		return cmp(a.Pointer() < b.Pointer(), a.Pointer() > b.Pointer())
	case reflect.Pointer, reflect.UnsafePointer:
		return cmp(a.Pointer() < b.Pointer(), a.Pointer() > b.Pointer())
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if c := compareValues(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if c := compareValues(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return cmp(a.IsNil() && !b.IsNil(), !a.IsNil() && b.IsNil())
		}
		ta, tb := a.Elem().Type().String(), b.Elem().Type().String()
		if ta != tb {
			return strings.Compare(ta, tb)
		}
		return compareValues(a.Elem(), b.Elem())
	}
	return 0
}

// mapAll yields m's entries in SortKeys order: the keys present when the
// iteration starts, skipping those deleted before they are reached (as a
// range loop may skip entries added during it, these are skipped).
func mapAll[Map ~map[K]V, K comparable, V any](m Map, yield func(K, V) bool) {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	SortKeys(keys)
	for _, k := range keys {
		if v, ok := m[k]; ok && !yield(k, v) {
			return
		}
	}
}

// MapsAll is maps.All in a fixed order.
func MapsAll[Map ~map[K]V, K comparable, V any](m Map) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) { mapAll(m, yield) }
}

// MapsKeys is maps.Keys in a fixed order.
func MapsKeys[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[K] {
	return func(yield func(K) bool) { mapAll(m, func(k K, _ V) bool { return yield(k) }) }
}

// MapsValues is maps.Values in a fixed order (that of the keys).
func MapsValues[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[V] {
	return func(yield func(V) bool) { mapAll(m, func(_ K, v V) bool { return yield(v) }) }
}
