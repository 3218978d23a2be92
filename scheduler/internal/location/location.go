// Package location names memory the same way in every execution of an
// exploration: package-level variables by address, heap objects by the
// goroutine that allocated them and its allocation count, anything else
// as unknown. It is a component of the engine with its own state (the
// process's globals, an execution's Index of heap objects) and no host: the
// engine registers what instrumented code allocates (Index.Add,
// RegisterGlobal) and asks it for names (Classify, Canon, Uncanon,
// Describe); it imports neither the engine nor its other components.
//
// Backing up by re-execution (checkpoint.Rerun) has a consequence the thesis,
// which restored real checkpoints, did not face: the read/write set of a
// delayed thread is recorded in one execution and intersected with blocks of
// later executions, where the same heap object lives at another address. So
// before a set is stored in a branch it is translated into names that survive
// re-execution, and translated back into addresses when a later execution
// reaches the branch point:
//
//   - package-level variables, registered once per process (the engine's
//     Global), keep their address;
//   - heap objects registered when instrumented code allocates them (the
//     engine's Alloc, New, ...) are named by the creating goroutine and its
//     allocation count, which a replayed prefix reproduces exactly;
//   - anything else is "unknown": the translation keeps only the fact that
//     unknown memory was read or written, and a delayed thread holding such a
//     fact is re-enabled by any block that touches unknown memory. That is
//     conservative (more schedules, never fewer).
//
// The names are package sched's (CanonRW, CanonAccess, HeapKey), which a
// strategy stores and hands back; the translations are the heap index's
// (Canon, Uncanon), which the engine offers a strategy (its engine.go).
package location

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

const pageShift = 12

// Region is a registered object: a package-level variable or a heap
// object, at Base, named Key (a heap object's) across executions.
type Region struct {
	Base, end uintptr
	Key       sched.HeapKey
	name      string         // a package-level variable's name
	typ       reflect.Type   // the object's type, or the element type of an array, if known
	keep      unsafe.Pointer // keeps the object alive, so its address is not reused within the run
	index     int32
}

// globals are the package-level variables registered by instrumented
// packages; they live as long as the process.
var globals struct {
	sync.Mutex
	regs []Region // sorted by base
}

// RegisterGlobal records a package-level variable; typ is its type if known
// (for the package-state fingerprint, see the driver's fingerprint.go).
func RegisterGlobal(p unsafe.Pointer, size uintptr, name string, typ reflect.Type) {
	if p == nil {
		return
	}
	if size == 0 {
		size = 1
	}
	globals.Lock()
	defer globals.Unlock()
	base := uintptr(p)
	i := sort.Search(len(globals.regs), func(i int) bool { return globals.regs[i].Base >= base })
	if i < len(globals.regs) && globals.regs[i].Base == base {
		return
	}
	globals.regs = append(globals.regs, Region{})
	copy(globals.regs[i+1:], globals.regs[i:])
	globals.regs[i] = Region{Base: base, end: base + size, name: name, keep: p, typ: typ}
}

func lookupGlobal(addr uintptr) *Region {
	globals.Lock()
	defer globals.Unlock()
	i := sort.Search(len(globals.regs), func(i int) bool { return globals.regs[i].end > addr })
	if i < len(globals.regs) && globals.regs[i].Base <= addr {
		return &globals.regs[i]
	}
	return nil
}

// Index is the per-execution registry of heap objects. Its storage is
// reused by the next execution, so registering costs no allocation once an
// exploration is warm.
type Index struct {
	regs     []Region
	links    []pageLink
	pages    map[uintptr]int32 // page -> 1 + index of its most recent link (0: none)
	byThread [][]int32         // creating thread -> Region of each of its registrations
}

// pageLink chains the regions overlapping one page, most recent first.
type pageLink struct{ reg, next int32 }

// Reset forgets the objects of the last execution.
func (h *Index) Reset() {
	clear(h.regs) // drop the references that keep objects alive
	h.regs = h.regs[:0]
	h.links = h.links[:0]
	clear(h.pages)
	for i := range h.byThread {
		h.byThread[i] = h.byThread[i][:0]
	}
}

// Add registers the object of size bytes at p, named key, of type typ
// (nil: unknown).
func (h *Index) Add(p unsafe.Pointer, size uintptr, key sched.HeapKey, typ reflect.Type) {
	if p == nil {
		return
	}
	if size == 0 {
		size = 1
	}
	if h.pages == nil {
		h.pages = make(map[uintptr]int32)
	}
	base := uintptr(p)
	i := int32(len(h.regs))
	if r := h.lookup(base); r != nil && r.Base == base && r.end == base+size {
		i = r.index // already registered (a slice registered again after append)
	} else {
		h.regs = append(h.regs, Region{Base: base, end: base + size, Key: key, keep: p, index: i, typ: typ})
		for pg := base >> pageShift; pg <= (base+size-1)>>pageShift; pg++ {
			h.links = append(h.links, pageLink{reg: i, next: h.pages[pg]})
			h.pages[pg] = int32(len(h.links))
		}
	}
	for int(key.Thread) >= len(h.byThread) {
		h.byThread = append(h.byThread, nil)
	}
	h.byThread[key.Thread] = append(h.byThread[key.Thread], i)
}

// lookup returns the most recently registered Region containing addr.
func (h *Index) lookup(addr uintptr) *Region {
	for l := h.pages[addr>>pageShift]; l != 0; l = h.links[l-1].next {
		r := &h.regs[h.links[l-1].reg]
		if r.Base <= addr && addr < r.end {
			return r
		}
	}
	return nil
}

// byKey returns the Region registered under k in this execution.
func (h *Index) byKey(k sched.HeapKey) (*Region, bool) {
	if int(k.Thread) >= len(h.byThread) || int(k.Seq) >= len(h.byThread[k.Thread]) {
		return nil, false
	}
	return &h.regs[h.byThread[k.Thread][k.Seq]], true
}

// Classify names addr in the current execution.
func (h *Index) Classify(addr uintptr) (sched.RegionKind, *Region) {
	if r := h.lookup(addr); r != nil {
		return sched.RegionHeap, r
	}
	if r := lookupGlobal(addr); r != nil {
		return sched.RegionGlobal, r
	}
	return sched.RegionUnknown, nil
}

// Canon translates a block's accesses. Objects registered at or after
// firstLocal belong to the block's own execution after the branch point: no
// other thread can reach them before the block runs, so they are dropped.
func (h *Index) Canon(s *sched.RWSet, isLocal func(sched.HeapKey) bool) *sched.CanonRW {
	c := &sched.CanonRW{UnknownR: s.UnknownR, UnknownW: s.UnknownW}
	if len(s.Acc) > 0 {
		c.Acc = make([]sched.CanonAccess, 0, len(s.Acc)) // one allocation, not one per doubling
	}
	for _, a := range s.Acc {
		switch kind, r := h.Classify(a.Addr); kind {
		case sched.RegionHeap:
			if isLocal(r.Key) {
				continue
			}
			c.Acc = append(c.Acc, sched.CanonAccess{Kind: sched.RegionHeap, Key: r.Key, Off: a.Addr - r.Base, Size: a.Size, Write: a.Write})
		case sched.RegionGlobal:
			c.Acc = append(c.Acc, sched.CanonAccess{Kind: sched.RegionGlobal, Addr: a.Addr, Size: a.Size, Write: a.Write})
		default:
			if a.Write {
				c.UnknownW = true
			} else {
				c.UnknownR = true
			}
		}
	}
	return c
}

// Uncanon translates a stored set into this execution's addresses. A heap
// object the stored set names but this execution has not registered cannot
// be touched by anyone here either, so its accesses are dropped.
func (h *Index) Uncanon(c *sched.CanonRW) *sched.RWSet {
	s := &sched.RWSet{UnknownR: c.UnknownR, UnknownW: c.UnknownW}
	if len(c.Acc) > 0 {
		s.Acc = make([]sched.Access, 0, len(c.Acc))
	}
	for _, a := range c.Acc {
		switch a.Kind {
		case sched.RegionGlobal:
			s.Add(a.Addr, a.Size, a.Write)
		case sched.RegionHeap:
			if r, ok := h.byKey(a.Key); ok {
				s.Add(r.Base+a.Off, a.Size, a.Write)
			}
		}
	}
	return s
}

// Describe names the location at addr for a report: a package-level
// variable's name or an object's type, then the field or element path.
func (h *Index) Describe(addr uintptr) string {
	kind, r := h.Classify(addr)
	if kind == sched.RegionUnknown {
		return ""
	}
	name := r.name
	if name == "" && r.typ != nil {
		name = r.typ.String()
	}
	if name == "" {
		return ""
	}
	return name + fieldPath(r.typ, addr-r.Base)
}

// fieldPath names the part of a value of type t at offset off: ".f.g",
// "[3].f".
func fieldPath(t reflect.Type, off uintptr) string {
	var b strings.Builder
	for t != nil {
		switch t.Kind() {
		case reflect.Struct:
			var f *reflect.StructField
			for i := 0; i < t.NumField(); i++ {
				sf := t.Field(i)
				if sf.Offset <= off && off < sf.Offset+sf.Type.Size() {
					f = &sf
					break
				}
			}
			if f == nil {
				return b.String()
			}
			if !f.Anonymous || f.Type.Kind() == reflect.Struct && strings.HasPrefix(f.Type.PkgPath(), "github.com/xbtest/xbtest/") {
				// An embedded xbtest type (a promoted Mutex) is named like a field.
				b.WriteString("." + f.Name)
			}
			off -= f.Offset
			t = f.Type
		case reflect.Array:
			es := t.Elem().Size()
			if es == 0 {
				return b.String()
			}
			fmt.Fprintf(&b, "[%d]", off/es)
			off %= es
			t = t.Elem()
		default:
			return b.String()
		}
		if strings.HasPrefix(t.PkgPath(), "github.com/xbtest/xbtest/") {
			return b.String() // do not name the scheduler's own fields
		}
	}
	return b.String()
}

// PackageVar is a registered package-level variable of an instrumented
// package.
type PackageVar struct {
	Name  string
	Value reflect.Value // the variable itself (addressable)
}

// PackageVars are the registered package-level variables whose types are
// known: the program state that survives from one execution into the next
// (the driver's fingerprint of it decides whether re-running is sound).
func PackageVars() []PackageVar {
	globals.Lock()
	defer globals.Unlock()
	var vars []PackageVar
	for _, g := range globals.regs {
		if g.typ != nil {
			vars = append(vars, PackageVar{g.name, reflect.NewAt(g.typ, g.keep).Elem()})
		}
	}
	return vars
}
