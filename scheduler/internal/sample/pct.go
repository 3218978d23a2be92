package sample

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// PCT is probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi
// and Nagarakatte, ASPLOS 2010). Each sample gives every thread a random
// priority at its creation, all above d, and picks d-1 priority change
// points uniformly among the k steps of a sample; the enabled thread of
// highest priority runs, and when step k_i is taken, the priority of the
// thread that took it drops to i. A step is a scheduling decision (a Pick:
// a block boundary at which another thread was enabled). k is estimated by
// the length of the first sample, which has no change point (the paper
// takes the previous sample's; the first's is known to every shard of the
// samples, Part, so sample i depends only on the seed and i). The paper's guarantee: a bug of depth d
// (d ordering constraints between events) among n threads and k steps is
// found with probability at least 1/(n k^(d-1)) per sample. Choices at a
// notify, select or timer choice point, which the paper's model does not
// have, are uniform.
type PCT struct {
	seed    uint64
	depth   int
	samples int
	part    Part
	i       int
	r       rng

	k      int     // the estimated number of steps of a sample
	step   int     // steps of the sample under way
	change []int   // change[j] is the step k_(j+1) (0: none)
	prio   []int64 // by creation index; 0: not yet given
}

var _ sched.Sampler = (*PCT)(nil)

// NewPCT returns PCT for bugs of depth d (>= 1) with seed, stopping after
// samples samples (0: never by itself), of which it runs part's.
func NewPCT(seed uint64, d, samples int, part Part) *PCT {
	s := &PCT{seed: seed, depth: max(d, 1), samples: samples, part: part}
	s.begin()
	return s
}

// begin starts sample s.i: its generator, change points, no priorities.
func (s *PCT) begin() {
	s.r = seeded(s.seed, s.i)
	s.step = 0
	s.prio = s.prio[:0]
	s.change = s.change[:0]
	for range s.depth - 1 {
		c := 0
		if s.k > 0 {
			c = 1 + s.r.intn(s.k)
		}
		s.change = append(s.change, c)
	}
}

// StartSample implements sched.Sampler.
func (s *PCT) StartSample() bool {
	if s.i == 0 {
		s.k = max(s.step, 1)
	}
	s.i = s.part.next(s.i)
	if s.samples > 0 && s.i >= s.samples {
		return false
	}
	s.begin()
	return true
}

// Counts implements sched.Sampler.
func (s *PCT) Counts() bool { return s.part.counts(s.i) }

// Index is the sample under way, from 0.
func (s *PCT) Index() int { return s.i }

// priority returns t's priority, giving it one at first sight: a random
// one above depth, so the threads' order is a uniform permutation.
func (s *PCT) priority(t int32) int64 {
	for int(t) >= len(s.prio) {
		s.prio = append(s.prio, 0)
	}
	if s.prio[t] == 0 {
		s.prio[t] = int64(s.depth) + 1 + int64(s.r.next()>>2)
	}
	return s.prio[t]
}

// Pick implements sched.Sampler: the step counts; at a change point cur's
// priority drops; the enabled thread of highest priority runs.
func (s *PCT) Pick(enabled *sched.TSet, cur int32) int32 {
	s.step++
	if cur >= 0 {
		for j, c := range s.change {
			if c == s.step {
				s.priority(cur)
				s.prio[cur] = int64(j + 1)
			}
		}
	}
	var best int32 = -1
	var bp int64
	enabled.Each(func(u int32) {
		if p := s.priority(u); best < 0 || p > bp {
			best, bp = u, p
		}
	})
	return best
}

// Option implements sched.Sampler: uniform among options.
func (s *PCT) Option(options []int32) int32 { return options[s.r.intn(len(options))] }

// Save implements sched.Sampler.
func (s *PCT) Save(e *sched.Enc) {
	e.Int(int64(s.i))
	e.Uint(s.r.s)
	e.Int(int64(s.k))
	e.Int(int64(s.step))
	e.Uint(uint64(len(s.change)))
	for _, c := range s.change {
		e.Int(int64(c))
	}
	e.Uint(uint64(len(s.prio)))
	for _, p := range s.prio {
		e.Int(p)
	}
}

// Load implements sched.Sampler.
func (s *PCT) Load(d *sched.Dec) {
	s.i = int(d.Int())
	s.r.s = d.Uint()
	s.k = int(d.Int())
	s.step = int(d.Int())
	s.change = s.change[:0]
	for n := d.N(); n > 0 && d.Err == nil; n-- {
		s.change = append(s.change, int(d.Int()))
	}
	s.prio = s.prio[:0]
	for n := d.N(); n > 0 && d.Err == nil; n-- {
		s.prio = append(s.prio, d.Int())
	}
}
