package sched

// Read/write sets of atomic blocks (thesis 2.4, Fig 2.12): ExitBlock-RW
// delays a thread with the reads and writes of its block and re-enables it
// when a later block's set intersects them.
//
// Two pairs (r1, w1) and (r2, w2) intersect iff
//
//	w1 ∩ w2 ≠ ∅  ∨  r1 ∩ w2 ≠ ∅  ∨  w1 ∩ r2 ≠ ∅.
//
// Like the thesis's VarSet, a set keeps a one-word summary (a 64-bit
// signature of the memory words touched) so that the common case, an empty
// intersection, is decided without looking at the elements.

// Access is one location touched by a block: the byte range
// [Addr, Addr+Size) and whether it was written.
type Access struct {
	Addr  uintptr
	Size  uintptr
	Write bool
}

// RWSet is the reads and writes of one block in one execution, by address.
// The engine translates it to and from execution-independent names
// (CanonRW; Engine.Canon, Engine.Uncanon).
type RWSet struct {
	sigR, sigW uint64 // signatures of the words read / written
	Acc        []Access
	index      map[accessKey]int32 // built once acc grows beyond linear search
	// UnknownR/UnknownW record accesses to memory the engine cannot name
	// in another execution (RegionUnknown). Only delayed entries carry
	// them; they intersect any block that touches such memory.
	UnknownR, UnknownW bool
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

// Add records an access; Add does not allocate once the set has grown.
func (s *RWSet) Add(addr, size uintptr, write bool) {
	sig := wordSig(addr, size)
	k := accessKey{addr, size}
	if s.index != nil {
		if i, ok := s.index[k]; ok {
			s.mark(i, sig, write)
			return
		}
	} else if (s.sigR|s.sigW)&sig == sig {
		for i := range s.Acc {
			if s.Acc[i].Addr == addr && s.Acc[i].Size == size {
				s.mark(int32(i), sig, write)
				return
			}
		}
	}
	s.Acc = append(s.Acc, Access{addr, size, write})
	if write {
		s.sigW |= sig
	} else {
		s.sigR |= sig
	}
	if s.index != nil {
		s.index[k] = int32(len(s.Acc) - 1)
	} else if len(s.Acc) > linearLimit {
		s.index = make(map[accessKey]int32, 2*len(s.Acc))
		for i, a := range s.Acc {
			s.index[accessKey{a.Addr, a.Size}] = int32(i)
		}
	}
}

func (s *RWSet) mark(i int32, sig uint64, write bool) {
	if write && !s.Acc[i].Write {
		s.Acc[i].Write = true
		s.sigW |= sig
	}
}

// Reset empties the set, keeping its storage.
func (s *RWSet) Reset() {
	s.sigR, s.sigW = 0, 0
	s.Acc = s.Acc[:0]
	s.index = nil
	s.UnknownR, s.UnknownW = false, false
}

func overlap(a, b Access) bool {
	as, bs := a.Size, b.Size
	if as == 0 {
		as = 1
	}
	if bs == 0 {
		bs = 1
	}
	return a.Addr < b.Addr+bs && b.Addr < a.Addr+as
}

// Intersects reports whether the two sets have a conflicting pair: a
// location written by one and read or written by the other.
func (s *RWSet) Intersects(o *RWSet) bool {
	if s.sigW&(o.sigR|o.sigW) == 0 && o.sigW&s.sigR == 0 {
		return false
	}
	a, b := s, o
	if len(a.Acc) > len(b.Acc) {
		a, b = b, a
	}
	for _, x := range a.Acc {
		for _, y := range b.Acc {
			if (x.Write || y.Write) && overlap(x, y) {
				return true
			}
		}
	}
	return false
}
