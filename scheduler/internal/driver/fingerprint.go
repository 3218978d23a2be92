package driver

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"reflect"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/chanobj"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/syncobj"
	"github.com/xbtest/xbtest/scheduler/internal/testingobj"
)

// Package state across executions.
//
// Re-running the test body (checkpoint.Rerun) is sound only if every
// execution starts from the same program state. The body's own objects are
// new in every execution, but package-level variables of instrumented
// packages (and what they point to) survive from one execution into the
// next: a registry filled by the last schedule, a counter, a file opened
// lazily. So the explorer fingerprints that state before the first
// execution and compares after each: a deep hash of the value of every
// registered package-level variable, following pointers, slices, maps and
// interfaces. A write that restores the old value is no change, which is
// exactly what soundness needs.
//
// Not seen: state of packages that are not instrumented (the standard
// library's caches), and the contents of files, which no snapshot restores.
// The scheduler's own synchronization objects are left out (a Mutex starts
// every execution afresh, see the engine's locks.go; so do the contexts
// and timers of package chanobj), except what is the program's data:
// the values of atomics, a Once's done flag, a sync.Map's entries (fields
// of the scheduler's types tagged `xbtest:"state"`).

// fingerprintBudget bounds the values visited: beyond it the state is too
// large to check after every execution, and the test is treated as one
// that changes it (fork checkpoints are then the sound choice).
const fingerprintBudget = 1 << 20

type stateFingerprint struct {
	vars     []engine.PackageVar
	sums     []uint64
	tooLarge bool
	now      []uint64 // changed's sums, kept: it runs after every execution
}

var fingerprintSeed = maphash.MakeSeed()

// packageState fingerprints the registered package-level variables; nil
// when there are none.
func packageState() *stateFingerprint {
	vars := engine.PackageVars()
	if len(vars) == 0 {
		return nil
	}
	fp := &stateFingerprint{vars: vars}
	fp.sums, fp.tooLarge = fp.compute(nil)
	return fp
}

// compute appends the variables' sums to sums[:0]; it reports whether
// the state was too large to hash.
func (fp *stateFingerprint) compute(sums []uint64) ([]uint64, bool) {
	h := &hasher{memo: map[memoKey]uint64{}, onPath: map[memoKey]bool{}, budget: fingerprintBudget}
	sums = sums[:0]
	for _, g := range fp.vars {
		sums = append(sums, h.value(g.Value))
	}
	return sums, h.budget < 0
}

// changed says which package-level variable differs from the fingerprint,
// or "" if none does.
func (fp *stateFingerprint) changed() string {
	if fp.tooLarge {
		return "package-level state is too large to compare after every execution"
	}
	sums, tooLarge := fp.compute(fp.now)
	fp.now = sums
	if tooLarge {
		return "package-level state grew too large to compare after every execution"
	}
	for i := range sums {
		if sums[i] != fp.sums[i] {
			return "the test changed package-level variable " + fp.vars[i].Name
		}
	}
	return ""
}

type memoKey struct {
	p unsafe.Pointer
	t reflect.Type
}

type hasher struct {
	memo   map[memoKey]uint64
	onPath map[memoKey]bool
	budget int
}

var (
	enginePkg     = reflect.TypeFor[engine.Exec]().PkgPath()
	testingobjPkg = reflect.TypeFor[testingobj.T]().PkgPath()
	objectsPkg    = reflect.TypeFor[syncobj.WaitGroup]().PkgPath()
	chanobjPkg    = reflect.TypeFor[chanobj.TimerCtl]().PkgPath()
	locationPtr   = reflect.TypeFor[*time.Location]()
)

func mix(h, x uint64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], h)
	binary.LittleEndian.PutUint64(b[8:], x)
	return maphash.Bytes(fingerprintSeed, b[:])
}

// value hashes v deeply.
func (h *hasher) value(v reflect.Value) uint64 {
	if h.budget--; h.budget < 0 {
		return 0
	}
	t := v.Type()
	k := uint64(v.Kind())
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return mix(k, 1)
		}
		return mix(k, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return mix(k, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return mix(k, v.Uint())
	case reflect.Float32, reflect.Float64:
		return mix(k, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return mix(mix(k, math.Float64bits(real(c))), math.Float64bits(imag(c)))
	case reflect.String:
		return mix(k, maphash.String(fingerprintSeed, v.String()))
	case reflect.UnsafePointer, reflect.Chan, reflect.Func:
		x := mix(k, uint64(v.Pointer()))
		if v.Kind() == reflect.Chan && !v.IsNil() {
			x = mix(x, uint64(v.Len()))
		}
		return x
	case reflect.Array:
		if t.Len() > 0 && scalar(t.Elem().Kind()) && v.CanAddr() {
			return mix(k, maphash.Bytes(fingerprintSeed, unsafe.Slice((*byte)(v.Addr().UnsafePointer()), t.Size())))
		}
		x := k
		for i := range v.Len() {
			x = mix(x, h.value(v.Index(i)))
		}
		return x
	case reflect.Slice:
		if v.IsNil() {
			return mix(k, 0)
		}
		x := mix(k, uint64(v.Len())+1)
		if v.Len() > 0 && scalar(t.Elem().Kind()) {
			return mix(x, maphash.Bytes(fingerprintSeed, unsafe.Slice((*byte)(v.UnsafePointer()), uintptr(v.Len())*t.Elem().Size())))
		}
		for i := range v.Len() {
			x = mix(x, h.value(v.Index(i)))
		}
		return x
	case reflect.Map:
		if v.IsNil() {
			return mix(k, 0)
		}
		// Entries in any order: a sum of per-entry hashes.
		var sum uint64
		it := v.MapRange()
		for it.Next() {
			sum += mix(h.value(it.Key()), h.value(it.Value()))
		}
		return mix(mix(k, uint64(v.Len())+1), sum)
	case reflect.Pointer:
		if v.IsNil() {
			return mix(k, 0)
		}
		if t == locationPtr {
			return mix(k, uint64(v.Pointer())) // its zone cache fills lazily
		}
		key := memoKey{v.UnsafePointer(), t}
		if x, ok := h.memo[key]; ok {
			return x
		}
		if h.onPath[key] {
			return mix(k, 1) // a cycle back to an object being hashed
		}
		h.onPath[key] = true
		x := mix(k, h.value(v.Elem()))
		delete(h.onPath, key)
		h.memo[key] = x
		return x
	case reflect.Interface:
		if v.IsNil() {
			return mix(k, 0)
		}
		e := v.Elem()
		return mix(mix(k, maphash.String(fingerprintSeed, e.Type().String())), h.value(e))
	case reflect.Struct:
		x := k
		own := t.PkgPath() == enginePkg || t.PkgPath() == objectsPkg || t.PkgPath() == chanobjPkg || t.PkgPath() == testingobjPkg
		for i := range v.NumField() {
			f := v.Field(i)
			if tag := t.Field(i).Tag.Get("xbtest"); own && (tag == "-" || f.Type().PkgPath() != "sync/atomic" && tag != "state") {
				continue // the scheduler's bookkeeping; only atomics' values and the program's data count
			}
			x = mix(x, h.value(f))
		}
		return x
	}
	return k
}

// scalar reports whether values of kind k are plain bytes without padding
// or pointers.
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}
