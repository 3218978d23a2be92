package exitblock

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// timedSet remembers, for each location a block touched after its first go
// statement, when it was last read and written (event numbers). The
// accesses after any later point are then known without keeping a log.
type timedSet struct {
	acc   []timedAccess
	index map[timedKey]int32
	last  int64 // event of the most recent access
}

// timedKey is a location of a timedSet.
type timedKey struct{ addr, size uintptr }

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
	k := timedKey{addr, size}
	i, ok := s.index[k]
	if !ok {
		if s.index == nil {
			s.index = make(map[timedKey]int32)
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
func (s *timedSet) since(ev int64) *sched.RWSet {
	out := &sched.RWSet{}
	for _, a := range s.acc {
		if a.lastW > ev {
			out.Add(a.addr, a.size, true)
		} else if a.lastR > ev {
			out.Add(a.addr, a.size, false)
		}
	}
	return out
}
