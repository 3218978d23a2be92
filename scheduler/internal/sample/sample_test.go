package sample

import (
	"testing"

	"github.com/xbtest/xbtest/scheduler/internal/sched"
)

func set(ts ...int32) *sched.TSet {
	var s sched.TSet
	for _, t := range ts {
		s.Add(t)
	}
	return &s
}

// picks runs n steps of a sample over threads 0..m-1, all enabled, the
// picked one running each step.
func picks(s sched.Sampler, m, n int) []int32 {
	var out []int32
	all := make([]int32, m)
	for i := range all {
		all[i] = int32(i)
	}
	cur := int32(-1)
	for range n {
		cur = s.Pick(set(all...), cur)
		out = append(out, cur)
	}
	return out
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The samples bound counts the first sample, which starts at construction.
func TestSamplesBound(t *testing.T) {
	for _, s := range []sched.Sampler{NewRandom(1, 3, Part{}), NewPCT(1, 3, 3, Part{})} {
		n := 1
		for s.StartSample() {
			n++
		}
		if n != 3 {
			t.Errorf("%T: %d samples, want 3", s, n)
		}
	}
}

// Sample i depends only on the seed and i: the same seed repeats it, a
// handed-over state (Save, Load) goes on with it.
func TestSeeded(t *testing.T) {
	a, b := NewRandom(5, 0, Part{}), NewRandom(5, 0, Part{})
	for range 3 {
		if pa, pb := picks(a, 4, 20), picks(b, 4, 20); !equal(pa, pb) {
			t.Fatalf("seed 5 twice: %v, %v", pa, pb)
		}
		a.StartSample()
		b.StartSample()
	}
	if equal(picks(NewRandom(5, 0, Part{}), 4, 20), picks(NewRandom(6, 0, Part{}), 4, 20)) {
		t.Error("seeds 5 and 6 pick the same 20 threads of 4")
	}
	p := NewPCT(9, 3, 0, Part{})
	picks(p, 3, 10)
	p.StartSample()
	var e sched.Enc
	p.Save(&e)
	q := NewPCT(9, 3, 0, Part{})
	q.Load(&sched.Dec{B: e.B})
	if pp, pq := picks(p, 3, 10), picks(q, 3, 10); !equal(pp, pq) {
		t.Errorf("after a hand-over: %v, want %v", pq, pp)
	}
}

// Without change points (d = 1) the thread of highest priority runs as
// long as it is enabled; with d = 2 and k steps, the thread that takes the
// change point drops below every other, once.
func TestPCTPriorities(t *testing.T) {
	s := NewPCT(3, 1, 0, Part{})
	ps := picks(s, 5, 12)
	for _, p := range ps {
		if p != ps[0] {
			t.Fatalf("d = 1 switched threads: %v", ps)
		}
	}
	s = NewPCT(3, 2, 0, Part{})
	picks(s, 5, 12) // k is learnt from the first sample's 12 steps
	switched := 0
	for i := range 20 {
		s.StartSample()
		ps := picks(s, 5, 12)
		switches := 0
		for j := 1; j < len(ps); j++ {
			if ps[j] != ps[j-1] {
				switches++
				if ps[j-1] != ps[0] {
					t.Errorf("sample %d: %v: the second thread was preempted too", i+1, ps)
				}
			}
		}
		if switches > 0 {
			switched++
		}
		if switches > 1 {
			t.Errorf("sample %d: %v: %d switches with one change point", i+1, ps, switches)
		}
		if s.k != 12 {
			t.Errorf("k = %d, want 12 (the first sample's steps)", s.k)
		}
	}
	// A change point at step 1 finds no thread running; at steps 2 to 12
	// it switches: 20 samples without a switch would have probability
	// (1/12)^20.
	if switched == 0 {
		t.Error("no sample switched threads at its change point")
	}
}
