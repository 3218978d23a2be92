package scheduler

import "math/bits"

// tset is a set of threads named by their creation index in a run. The
// explorer's sets (enabled, the members of a branch) are tsets: creation
// indices, unlike thread objects, name the same goroutine in every
// re-execution of a common prefix.
type tset struct{ w []uint64 }

func (s *tset) add(i int32) {
	k := int(i >> 6)
	for len(s.w) <= k {
		s.w = append(s.w, 0)
	}
	s.w[k] |= 1 << (uint(i) & 63)
}

func (s *tset) remove(i int32) {
	if k := int(i >> 6); k < len(s.w) {
		s.w[k] &^= 1 << (uint(i) & 63)
	}
}

func (s *tset) has(i int32) bool {
	k := int(i >> 6)
	return k < len(s.w) && s.w[k]&(1<<(uint(i)&63)) != 0
}

func (s *tset) empty() bool {
	for _, w := range s.w {
		if w != 0 {
			return false
		}
	}
	return true
}

// first returns the member created earliest, or -1.
func (s *tset) first() int32 {
	for k, w := range s.w {
		if w != 0 {
			return int32(k<<6 + bits.TrailingZeros64(w))
		}
	}
	return -1
}

// hasOther reports whether the set has a member other than i.
func (s *tset) hasOther(i int32) bool {
	for k, w := range s.w {
		if k == int(i>>6) {
			w &^= 1 << (uint(i) & 63)
		}
		if w != 0 {
			return true
		}
	}
	return false
}

func (s tset) clone() tset {
	if len(s.w) == 0 {
		return tset{}
	}
	return tset{w: append([]uint64(nil), s.w...)}
}

// each calls f for every member in creation order.
func (s *tset) each(f func(int32)) {
	for k, w := range s.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			w &^= 1 << uint(b)
			f(int32(k<<6 + b))
		}
	}
}
