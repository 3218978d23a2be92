package engine

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

// Locations across executions.
//
// Backing up by re-execution (checkpoint.Rerun) has a consequence the thesis,
// which restored real checkpoints, did not face: the read/write set of a
// delayed thread is recorded in one execution and intersected with blocks of
// later executions, where the same heap object lives at another address. So
// before a set is stored in a branch it is translated into names that survive
// re-execution, and translated back into addresses when a later execution
// reaches the branch point:
//
//   - package-level variables, registered once per process (Global), keep
//     their address;
//   - heap objects registered when instrumented code allocates them (Alloc,
//     MakeChan, ...) are named by the creating goroutine and its allocation
//     count, which a replayed prefix reproduces exactly;
//   - anything else is "unknown": the translation keeps only the fact that
//     unknown memory was read or written, and a delayed thread holding such a
//     fact is re-enabled by any block that touches unknown memory. That is
//     conservative (more schedules, never fewer).
//
// The names are package sched's (CanonRW, CanonAccess, HeapKey), which a
// strategy stores and hands back; the translations are the heap index's
// (canon, uncanon), which the engine offers a strategy (engine.go).

const pageShift = 12

type region struct {
	base, end uintptr
	key       sched.HeapKey
	name      string         // a package-level variable's name
	typ       reflect.Type   // the object's type, or the element type of an array, if known
	keep      unsafe.Pointer // keeps the object alive, so its address is not reused within the run
	index     int32
}

// globals are the package-level variables registered by instrumented
// packages; they live as long as the process.
var globals struct {
	sync.Mutex
	regs []region // sorted by base
}

// registerGlobal records a package-level variable; typ is its type if known
// (for the package-state fingerprint, see the driver's fingerprint.go).
func registerGlobal(p unsafe.Pointer, size uintptr, name string, typ reflect.Type) {
	if p == nil {
		return
	}
	if size == 0 {
		size = 1
	}
	globals.Lock()
	defer globals.Unlock()
	base := uintptr(p)
	i := sort.Search(len(globals.regs), func(i int) bool { return globals.regs[i].base >= base })
	if i < len(globals.regs) && globals.regs[i].base == base {
		return
	}
	globals.regs = append(globals.regs, region{})
	copy(globals.regs[i+1:], globals.regs[i:])
	globals.regs[i] = region{base: base, end: base + size, name: name, keep: p, typ: typ}
}

func lookupGlobal(addr uintptr) *region {
	globals.Lock()
	defer globals.Unlock()
	i := sort.Search(len(globals.regs), func(i int) bool { return globals.regs[i].end > addr })
	if i < len(globals.regs) && globals.regs[i].base <= addr {
		return &globals.regs[i]
	}
	return nil
}

// heapIndex is the per-execution registry of heap objects. Its storage is
// reused by the next execution, so registering costs no allocation once an
// exploration is warm.
type heapIndex struct {
	regs     []region
	links    []pageLink
	pages    map[uintptr]int32 // page -> 1 + index of its most recent link (0: none)
	byThread [][]int32         // creating thread -> region of each of its registrations
}

// pageLink chains the regions overlapping one page, most recent first.
type pageLink struct{ reg, next int32 }

func (h *heapIndex) reset() {
	clear(h.regs) // drop the references that keep objects alive
	h.regs = h.regs[:0]
	h.links = h.links[:0]
	clear(h.pages)
	for i := range h.byThread {
		h.byThread[i] = h.byThread[i][:0]
	}
}

func (h *heapIndex) add(p unsafe.Pointer, size uintptr, key sched.HeapKey, typ reflect.Type) {
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
	if r := h.lookup(base); r != nil && r.base == base && r.end == base+size {
		i = r.index // already registered (a slice registered again after append)
	} else {
		h.regs = append(h.regs, region{base: base, end: base + size, key: key, keep: p, index: i, typ: typ})
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

// lookup returns the most recently registered region containing addr.
func (h *heapIndex) lookup(addr uintptr) *region {
	for l := h.pages[addr>>pageShift]; l != 0; l = h.links[l-1].next {
		r := &h.regs[h.links[l-1].reg]
		if r.base <= addr && addr < r.end {
			return r
		}
	}
	return nil
}

// byKey returns the region registered under k in this execution.
func (h *heapIndex) byKey(k sched.HeapKey) (*region, bool) {
	if int(k.Thread) >= len(h.byThread) || int(k.Seq) >= len(h.byThread[k.Thread]) {
		return nil, false
	}
	return &h.regs[h.byThread[k.Thread][k.Seq]], true
}

// classify names addr in the current execution.
func (h *heapIndex) classify(addr uintptr) (sched.RegionKind, *region) {
	if r := h.lookup(addr); r != nil {
		return sched.RegionHeap, r
	}
	if r := lookupGlobal(addr); r != nil {
		return sched.RegionGlobal, r
	}
	return sched.RegionUnknown, nil
}

// canon translates a block's accesses. Objects registered at or after
// firstLocal belong to the block's own execution after the branch point: no
// other thread can reach them before the block runs, so they are dropped.
func (h *heapIndex) canon(s *sched.RWSet, isLocal func(sched.HeapKey) bool) *sched.CanonRW {
	c := &sched.CanonRW{UnknownR: s.UnknownR, UnknownW: s.UnknownW}
	if len(s.Acc) > 0 {
		c.Acc = make([]sched.CanonAccess, 0, len(s.Acc)) // one allocation, not one per doubling
	}
	for _, a := range s.Acc {
		switch kind, r := h.classify(a.Addr); kind {
		case sched.RegionHeap:
			if isLocal(r.key) {
				continue
			}
			c.Acc = append(c.Acc, sched.CanonAccess{Kind: sched.RegionHeap, Key: r.key, Off: a.Addr - r.base, Size: a.Size, Write: a.Write})
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

// uncanon translates a stored set into this execution's addresses. A heap
// object the stored set names but this execution has not registered cannot
// be touched by anyone here either, so its accesses are dropped.
func (h *heapIndex) uncanon(c *sched.CanonRW) *sched.RWSet {
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
				s.Add(r.base+a.Off, a.Size, a.Write)
			}
		}
	}
	return s
}

// describe names the location at addr for a report: a package-level
// variable's name or an object's type, then the field or element path.
func (h *heapIndex) describe(addr uintptr) string {
	kind, r := h.classify(addr)
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
	return name + fieldPath(r.typ, addr-r.base)
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
