package engine

import "unsafe"

// The drop-in synchronization types have exactly the size and alignment of
// those they replace (a Mutex is a sync.Mutex, an RWMutex a
// sync.RWMutex), so that unsafe.Sizeof, Offsetof, cache-line padding
// and struct layouts that other code relies on are the same under xbtest.
// Each holds the native object it replaces, which works when no execution
// is under way (package initialisation, code that runs outside the test
// body); what the scheduler knows of it during an execution lives here, in
// tables of the execution keyed by the object's address, and is forgotten
// with the execution. (The other drop-in objects keep theirs in package
// syncobj's tables, which the execution holds as its ObjectTables.)

// syncTables are the per-execution states of this package's locks.
type syncTables struct {
	locks map[unsafe.Pointer]*lockState
	// states handed out, reused by later executions
	lockPool []*lockState
	nlocks   int
}

func (s *syncTables) reset() {
	if s.locks == nil {
		s.locks = map[unsafe.Pointer]*lockState{}
	}
	clear(s.locks)
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
