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

// tables are the per-execution states of this package's objects.
type tables struct {
	wgs   map[unsafe.Pointer]*wgState
	conds map[unsafe.Pointer]*condState
}

func newTables() engine.ObjectTables {
	return &tables{wgs: map[unsafe.Pointer]*wgState{}, conds: map[unsafe.Pointer]*condState{}}
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
}

func wgOf(g *engine.G, wg *WaitGroup) *wgState {
	p := unsafe.Pointer(wg)
	s := tablesOf(g)
	if w := s.wgs[p]; w != nil {
		return w
	}
	w := &wgState{id: g.NewObject()}
	s.wgs[p] = w
	return w
}

// condState is a Cond during one execution.
type condState struct {
	id      int32
	waiters []*engine.G // FIFO, as Go's notify list
}

func condOf(g *engine.G, c *Cond) *condState {
	p := unsafe.Pointer(c)
	s := tablesOf(g)
	if cs := s.conds[p]; cs != nil {
		return cs
	}
	cs := &condState{id: g.NewObject()}
	s.conds[p] = cs
	return cs
}
