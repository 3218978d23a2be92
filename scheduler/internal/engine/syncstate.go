package engine

import "unsafe"

// The drop-in synchronization types have exactly the size and alignment of
// those they replace (a Mutex is a sync.Mutex, a WaitGroup a
// sync.WaitGroup...), so that unsafe.Sizeof, Offsetof, cache-line padding
// and struct layouts that other code relies on are the same under xbtest.
// Each holds the native object it replaces, which works when no execution
// is under way (package initialisation, code that runs outside the test
// body); what the scheduler knows of it during an execution lives here, in
// tables of the execution keyed by the object's address, and is forgotten
// with the execution.

// syncTables are the per-execution states of synchronization objects.
type syncTables struct {
	locks map[unsafe.Pointer]*lockState
	wgs   map[unsafe.Pointer]*wgState
	conds map[unsafe.Pointer]*condState
	// states handed out, reused by later executions
	lockPool []*lockState
	nlocks   int
}

func (s *syncTables) reset() {
	if s.locks == nil {
		s.locks = map[unsafe.Pointer]*lockState{}
		s.wgs = map[unsafe.Pointer]*wgState{}
		s.conds = map[unsafe.Pointer]*condState{}
	}
	clear(s.locks)
	clear(s.wgs)
	clear(s.conds)
	s.nlocks = 0
}

// lockOf returns this execution's state of the Mutex or RWMutex at addr.
func (r *run) lockOf(addr unsafe.Pointer, rw bool) *lockState {
	s := &r.sync
	if l := s.locks[addr]; l != nil {
		return l
	}
	if s.nlocks == len(s.lockPool) {
		s.lockPool = append(s.lockPool, new(lockState))
	}
	l := s.lockPool[s.nlocks]
	s.nlocks++
	readers, clk := l.readers[:0], l.clocks
	clk.W.Reset()
	clk.R.Reset()
	*l = lockState{id: r.newObj(), rw: rw, addr: addr, readers: readers, clocks: clk}
	s.locks[addr] = l
	return l
}

// wgState is a WaitGroup during one execution.
type wgState struct {
	id      int32
	n       int64
	waiters []*thread
}

func (r *run) wgOf(wg *WaitGroup) *wgState {
	p := unsafe.Pointer(wg)
	if w := r.sync.wgs[p]; w != nil {
		return w
	}
	w := &wgState{id: r.newObj()}
	r.sync.wgs[p] = w
	return w
}

// condState is a Cond during one execution.
type condState struct {
	id      int32
	waiters []*thread // FIFO, as Go's notify list
}

func (r *run) condOf(c *Cond) *condState {
	p := unsafe.Pointer(c)
	if s := r.sync.conds[p]; s != nil {
		return s
	}
	s := &condState{id: r.newObj()}
	r.sync.conds[p] = s
	return s
}
