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
//
// Whether a heap object's region keeps it alive depends on the Index's
// mode (see Index): kept, its address is not reused within the execution;
// not kept, it is collected when the program drops it, as in plain Go.
// Nothing here dereferences a heap object's address; only a package-level
// variable's (keep) is read, by PackageVars.
type Region struct {
	Base, end uintptr
	Key       sched.HeapKey
	name      string         // a package-level variable's name
	typ       reflect.Type   // the object's type, or the element type of an array, if known
	keep      unsafe.Pointer // keeps the object alive (a package-level variable; a heap object if the index keeps them)
	gc        uint64         // heap: the collector's completed cycles before it was registered (a lower bound)
	index     int32
	gone      bool // heap: dead, a newer object took (part of) its place
	doubt     bool // heap: its address may be another object's: unknown
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
//
// By default the index keeps every object it registers alive until the
// execution ends, so that an address names one object within it. A program
// that can observe a collection (it calls runtime.GC, runtime.AddCleanup,
// runtime.SetFinalizer or weak.Make: the rewriter says so, see the engine's
// Collectable) would then wait in vain for an object to be collected; for
// such a program (Reset with a cycle count) the index keeps nothing, an
// object the program dropped may be collected during the execution and its
// address given to a new one, and the index does not trust an address
// after a collection:
//
//   - a new object registered over a registered one (two live objects do
//     not overlap) means the old one is dead: it is forgotten (gone) and
//     Add tells the caller, which clears the race detection's history of
//     the range (as Go's race detector does at every allocation);
//   - an object the index did not see allocated (made by code that is not
//     rewritten, an escaping local variable) may take a dead object's
//     address too, so a region registered before a collection completed
//     in this execution (the collector's cycle count, read by Refresh) is
//     in doubt: Classify calls its memory unknown, which is conservative
//     (more schedules, never fewer), rather than give the old object's name
//     to whatever lives there now.
//
// Without a collection during the execution, nothing changes: the names are
// the same in every execution. (Not the default because collections are
// not deterministic: an execution during which one completes names less,
// and explores more, than another.)
type Index struct {
	regs     []Region
	links    []pageLink
	pages    map[uintptr]int32 // page -> 1 + index of its most recent link (0: none)
	byThread [][]int32         // creating thread -> Region of each of its registrations
	cycles   func() uint64     // the collector's completed cycles (nil: objects are kept alive)
	epoch    uint64            // cycles at the last Reset or Refresh
}

// pageLink chains the regions overlapping one page, most recent first.
type pageLink struct{ reg, next int32 }

// escapeSink makes the objects registered escape to the heap, as they did
// when the index kept a reference to them: the store never runs, but escape
// analysis does not know (the runtime's own escapes trick). An object that
// stayed on a goroutine's stack would move when the stack grows.
var escapeSink struct {
	on bool
	p  unsafe.Pointer
}

// Reset forgets the objects of the last execution. cycles counts the
// collector's completed cycles, nil to keep the objects registered alive
// (see Index). The engine calls Refresh when the next execution starts.
func (h *Index) Reset(cycles func() uint64) {
	clear(h.regs) // drop the references that keep objects alive
	h.regs = h.regs[:0]
	h.links = h.links[:0]
	clear(h.pages)
	for i := range h.byThread {
		h.byThread[i] = h.byThread[i][:0]
	}
	h.cycles, h.epoch = cycles, 0
}

// Refresh reads the collector's cycle count: the regions registered before a
// cycle completed are in doubt from now on. The engine calls it before it
// asks for names that a strategy keeps (Canon).
func (h *Index) Refresh() {
	if h.cycles != nil {
		h.epoch = h.cycles()
	}
}

// Add registers the object of size bytes at p, named key, of type typ
// (nil: unknown). fresh says that the object was just allocated (new, a
// composite literal, make of a map); otherwise (make or append of a slice)
// it may be one registered before, an array append filled in place.
// reused reports that the object took the place of registered ones, which
// are dead: the caller forgets the history of its bytes.
func (h *Index) Add(p unsafe.Pointer, size uintptr, key sched.HeapKey, typ reflect.Type, fresh bool) (reused bool) {
	if p == nil {
		return false
	}
	if size == 0 {
		size, fresh = 1, false // zero-size objects share one address
	}
	if h.pages == nil {
		h.pages = make(map[uintptr]int32)
	}
	base, end := uintptr(p), uintptr(p)+size
	i := int32(len(h.regs))
	if h.cycles == nil {
		// Objects are kept: no address is reused within the execution.
		if r := h.lookup(base); r != nil && r.Base == base && r.end == end {
			i = r.index // already registered (a slice registered again after append)
		} else {
			h.regs = append(h.regs, Region{Base: base, end: end, Key: key, keep: p, index: i, typ: typ})
			h.link(i, base, end)
		}
		h.threadReg(key, i)
		return false
	}
	if escapeSink.on {
		escapeSink.p = p
	}
	same, doubt := false, false
	collected := -1 // whether a cycle completed since a region was registered: -1 not read yet
	for pg := base >> pageShift; pg <= (end-1)>>pageShift; pg++ {
		head := h.pages[pg]
		newHead := head
		prev := int32(0)
		for l := head; l != 0; {
			lk := &h.links[l-1]
			r := &h.regs[lk.reg]
			if r.gone { // unlink it
				if prev == 0 {
					newHead = lk.next
				} else {
					h.links[prev-1].next = lk.next
				}
				l = lk.next
				continue
			}
			if r.Base < end && base < r.end && !(same && r.index == i) {
				switch {
				case fresh:
					// Two live objects do not overlap: r is dead.
					r.gone, reused = true, true
				case h.collectedSince(r, &collected):
					// The same array (filled in place, or a part of it),
					// or a new one where a dead one was: in doubt. The
					// detection's history stays; a race it completes is
					// confirmed by replay (a cycle completed).
					doubt = true
					if r.Base == base && r.end == end {
						r.gone = true
					} else {
						r.doubt = true
					}
				case r.Base == base && r.end == end:
					// Registered again (a slice after an append that
					// did not grow it): no collection since, so r lives.
					same, i = true, r.index
				}
			}
			prev, l = l, lk.next
		}
		if newHead != head {
			h.pages[pg] = newHead
		}
	}
	if !same {
		h.regs = append(h.regs, Region{Base: base, end: end, Key: key, index: i, typ: typ, gc: h.epoch, doubt: doubt})
		h.link(i, base, end)
	}
	h.threadReg(key, i)
	return reused
}

// link chains region i into the lists of the pages of [base, end).
func (h *Index) link(i int32, base, end uintptr) {
	for pg := base >> pageShift; pg <= (end-1)>>pageShift; pg++ {
		h.links = append(h.links, pageLink{reg: i, next: h.pages[pg]})
		h.pages[pg] = int32(len(h.links))
	}
}

// threadReg records region i as key's registration.
func (h *Index) threadReg(key sched.HeapKey, i int32) {
	for int(key.Thread) >= len(h.byThread) {
		h.byThread = append(h.byThread, nil)
	}
	h.byThread[key.Thread] = append(h.byThread[key.Thread], i)
}

// collectedSince reports whether a collection may have completed since r
// was registered (reading the cycle count once per Add, into *collected).
func (h *Index) collectedSince(r *Region, collected *int) bool {
	if *collected < 0 {
		h.Refresh()
		*collected = 0
	}
	return r.gc != h.epoch
}

// lookup returns the most recently registered live Region containing addr.
func (h *Index) lookup(addr uintptr) *Region {
	for l := h.pages[addr>>pageShift]; l != 0; l = h.links[l-1].next {
		r := &h.regs[h.links[l-1].reg]
		if !r.gone && r.Base <= addr && addr < r.end {
			return r
		}
	}
	return nil
}

// byKey returns the Region registered under k in this execution, dead or
// alive (Uncanon: a set that names a dead object, mapped onto whatever
// lives at its address, conflicts with more, never less).
func (h *Index) byKey(k sched.HeapKey) (*Region, bool) {
	if int(k.Thread) >= len(h.byThread) || int(k.Seq) >= len(h.byThread[k.Thread]) {
		return nil, false
	}
	return &h.regs[h.byThread[k.Thread][k.Seq]], true
}

// Classify names addr in the current execution.
func (h *Index) Classify(addr uintptr) (sched.RegionKind, *Region) {
	if r := h.lookup(addr); r != nil {
		if r.doubt || r.gc != h.epoch {
			return sched.RegionUnknown, nil // see Index
		}
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
	h.Refresh() // an object registered before a collection may be dead (see Index)
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

// Registered reports whether addr is in an object registered in this
// execution, or in its place (a dead object's memory was reused by one
// allocated after it, in this execution too).
func (h *Index) Registered(addr uintptr) bool { return h.lookup(addr) != nil }

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
