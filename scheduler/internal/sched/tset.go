package sched

import "math/bits"

// TSet is a set of threads named by their creation index in an execution.
// A strategy's sets (ExitBlock's enabled set, the members of a branch) are
// TSets: creation indices, unlike the engine's thread objects, name the
// same goroutine in every re-execution of a common prefix.
type TSet struct{ w []uint64 }

// Add adds thread i.
func (s *TSet) Add(i int32) {
	k := int(i >> 6)
	for len(s.w) <= k {
		s.w = append(s.w, 0)
	}
	s.w[k] |= 1 << (uint(i) & 63)
}

// Remove removes thread i.
func (s *TSet) Remove(i int32) {
	if k := int(i >> 6); k < len(s.w) {
		s.w[k] &^= 1 << (uint(i) & 63)
	}
}

// Has reports whether i is a member.
func (s *TSet) Has(i int32) bool {
	k := int(i >> 6)
	return k < len(s.w) && s.w[k]&(1<<(uint(i)&63)) != 0
}

// Empty reports whether the set has no member.
func (s *TSet) Empty() bool {
	for _, w := range s.w {
		if w != 0 {
			return false
		}
	}
	return true
}

// First returns the member created earliest, or -1.
func (s *TSet) First() int32 {
	for k, w := range s.w {
		if w != 0 {
			return int32(k<<6 + bits.TrailingZeros64(w))
		}
	}
	return -1
}

// HasOther reports whether the set has a member other than i.
func (s *TSet) HasOther(i int32) bool {
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

// Clone returns a copy of s that shares no storage with it.
func (s TSet) Clone() TSet {
	if len(s.w) == 0 {
		return TSet{}
	}
	return TSet{w: append([]uint64(nil), s.w...)}
}

// Each calls f for every member in creation order.
func (s *TSet) Each(f func(int32)) {
	for k, w := range s.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			w &^= 1 << uint(b)
			f(int32(k<<6 + b))
		}
	}
}

// CopyFrom makes s a copy of o, reusing s's storage.
func (s *TSet) CopyFrom(o *TSet) { s.w = append(s.w[:0], o.w...) }

// Len returns the number of members.
func (s *TSet) Len() int {
	n := 0
	for _, w := range s.w {
		n += bits.OnesCount64(w)
	}
	return n
}
