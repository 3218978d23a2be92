package scheduler

// Read/write sets of atomic blocks (thesis 2.4, Fig 2.12).
//
// Two pairs (r1, w1) and (r2, w2) intersect iff
//
//	w1 ∩ w2 ≠ ∅  ∨  r1 ∩ w2 ≠ ∅  ∨  w1 ∩ r2 ≠ ∅.
//
// Like the thesis's VarSet, a set keeps a one-word summary (a 64-bit
// signature of the memory words touched) so that the common case, an empty
// intersection, is decided without looking at the elements.

// access is one location touched by a block: the byte range
// [addr, addr+size) and whether it was written.
type access struct {
	addr  uintptr
	size  uintptr
	write bool
}

// rwSet is the reads and writes of one block in one execution, by address.
type rwSet struct {
	sigR, sigW uint64 // signatures of the words read / written
	acc        []access
	index      map[accessKey]int32 // built once acc grows beyond linear search
	// unknownR/unknownW record accesses to memory the location registry
	// cannot name in another execution (see location.go). Only delayed
	// entries carry them; they intersect any block that touches such memory.
	unknownR, unknownW bool
}

type accessKey struct{ addr, size uintptr }

const linearLimit = 16

// wordSig returns the signature bits of the words covered by an access.
func wordSig(addr, size uintptr) uint64 {
	if size == 0 {
		size = 1
	}
	first, last := addr>>3, (addr+size-1)>>3
	if last-first >= 8 {
		return ^uint64(0)
	}
	var s uint64
	for w := first; w <= last; w++ {
		s |= 1 << ((w ^ w>>6 ^ w>>12) & 63)
	}
	return s
}

func (s *rwSet) add(addr, size uintptr, write bool) {
	sig := wordSig(addr, size)
	k := accessKey{addr, size}
	if s.index != nil {
		if i, ok := s.index[k]; ok {
			s.mark(i, sig, write)
			return
		}
	} else if (s.sigR|s.sigW)&sig == sig {
		for i := range s.acc {
			if s.acc[i].addr == addr && s.acc[i].size == size {
				s.mark(int32(i), sig, write)
				return
			}
		}
	}
	s.acc = append(s.acc, access{addr, size, write})
	if write {
		s.sigW |= sig
	} else {
		s.sigR |= sig
	}
	if s.index != nil {
		s.index[k] = int32(len(s.acc) - 1)
	} else if len(s.acc) > linearLimit {
		s.index = make(map[accessKey]int32, 2*len(s.acc))
		for i, a := range s.acc {
			s.index[accessKey{a.addr, a.size}] = int32(i)
		}
	}
}

func (s *rwSet) mark(i int32, sig uint64, write bool) {
	if write && !s.acc[i].write {
		s.acc[i].write = true
		s.sigW |= sig
	}
}

func (s *rwSet) reset() {
	s.sigR, s.sigW = 0, 0
	s.acc = s.acc[:0]
	s.index = nil
	s.unknownR, s.unknownW = false, false
}

func overlap(a, b access) bool {
	as, bs := a.size, b.size
	if as == 0 {
		as = 1
	}
	if bs == 0 {
		bs = 1
	}
	return a.addr < b.addr+bs && b.addr < a.addr+as
}

// intersects reports whether the two sets have a conflicting pair: a
// location written by one and read or written by the other.
func (s *rwSet) intersects(o *rwSet) bool {
	if s.sigW&(o.sigR|o.sigW) == 0 && o.sigW&s.sigR == 0 {
		return false
	}
	a, b := s, o
	if len(a.acc) > len(b.acc) {
		a, b = b, a
	}
	for _, x := range a.acc {
		for _, y := range b.acc {
			if (x.write || y.write) && overlap(x, y) {
				return true
			}
		}
	}
	return false
}

// timedSet remembers, for each location a block touched after its first go
// statement, when it was last read and written (event numbers). The
// accesses after any later point are then known without keeping a log.
type timedSet struct {
	acc   []timedAccess
	index map[accessKey]int32
	last  int64 // event of the most recent access
}

type timedAccess struct {
	addr, size   uintptr
	lastR, lastW int64
}

func (s *timedSet) reset() {
	s.acc = s.acc[:0]
	clear(s.index)
	s.last = 0
}

func (s *timedSet) add(addr, size uintptr, write bool, ev int64) {
	s.last = ev
	k := accessKey{addr, size}
	i, ok := s.index[k]
	if !ok {
		if s.index == nil {
			s.index = make(map[accessKey]int32)
		}
		i = int32(len(s.acc))
		s.acc = append(s.acc, timedAccess{addr: addr, size: size})
		s.index[k] = i
	}
	if write {
		s.acc[i].lastW = ev
	} else {
		s.acc[i].lastR = ev
	}
}

// since returns the reads and writes made after event ev.
func (s *timedSet) since(ev int64) *rwSet {
	out := &rwSet{}
	for _, a := range s.acc {
		if a.lastW > ev {
			out.add(a.addr, a.size, true)
		} else if a.lastR > ev {
			out.add(a.addr, a.size, false)
		}
	}
	return out
}
