package syncobj

import (
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// The drop-in types have exactly the size and alignment of those they
// replace (a WaitGroup is a sync.WaitGroup...), so that unsafe.Sizeof,
// Offsetof, cache-line padding and struct layouts that other code relies
// on are the same under xbtest. Each holds the native object it replaces,
// which works when no execution is under way (package initialisation, code
// that runs outside the test body); what the scheduler knows of it during
// an execution lives here, in tables of the execution keyed by the
// object's address (engine.ObjectTables), forgotten with the execution.
// The tables key objects by address. If the program may observe a
// collection (engine.Collectable) they do not keep them alive, so that an
// object the program dropped is collected as in plain Go; a WaitGroup
// whose counter is not zero stays (wgState.obj), so that a new one at its
// address cannot inherit the count (a Cond's waiters, parked goroutines
// holding it, keep it alive themselves). Otherwise obj keeps every object.

// tables are the per-execution states of this package's objects.
type tables struct {
	wgs   map[uintptr]*wgState
	conds map[uintptr]*condState
}

func newTables() engine.ObjectTables {
	return &tables{wgs: map[uintptr]*wgState{}, conds: map[uintptr]*condState{}}
}

func (s *tables) Reset() {
	clear(s.wgs)
	clear(s.conds)
}

// slot is where executions keep this package's tables.
var slot = engine.NewSlot()

func tablesOf(g *engine.G) *tables { return g.Objects(slot, newTables).(*tables) }

// wgState is a WaitGroup during one execution.
type wgState struct {
	id      int32
	n       int64
	waiters []*engine.G
	obj     unsafe.Pointer // the WaitGroup (while n is not zero if engine.Collectable)
}

func wgOf(g *engine.G, wg *WaitGroup) *wgState {
	p := uintptr(unsafe.Pointer(wg))
	s := tablesOf(g)
	if w := s.wgs[p]; w != nil {
		return w
	}
	w := &wgState{id: g.NewObject(), obj: unsafe.Pointer(wg)}
	s.wgs[p] = w
	return w
}

// condState is a Cond during one execution.
type condState struct {
	id      int32
	waiters []*engine.G    // FIFO, as Go's notify list
	obj     unsafe.Pointer // the Cond, unless engine.Collectable
}

func condOf(g *engine.G, c *Cond) *condState {
	p := uintptr(unsafe.Pointer(c))
	s := tablesOf(g)
	if cs := s.conds[p]; cs != nil {
		return cs
	}
	cs := &condState{id: g.NewObject()}
	if !engine.Collectable() {
		cs.obj = unsafe.Pointer(c)
	}
	s.conds[p] = cs
	return cs
}
