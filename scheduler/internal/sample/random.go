package sample

import "github.com/xbtest/xbtest/scheduler/internal/sched"

// Random is a random walk over the tree: at every choice point, uniform
// among the enabled threads or the options. A bug that needs the walk to
// take one of c children at each of m choice points is found with
// probability at least the product of 1/c over them per sample.
type Random struct {
	seed    uint64
	samples int // the bound (0: none)
	part    Part
	i       int // the sample under way, from 0
	r       rng
}

var _ sched.Sampler = (*Random)(nil)

// NewRandom returns a random walk of seed that stops after samples samples
// (0: never by itself), of which it runs part's.
func NewRandom(seed uint64, samples int, part Part) *Random {
	return &Random{seed: seed, samples: samples, part: part, r: seeded(seed, 0)}
}

// StartSample implements sched.Sampler.
func (s *Random) StartSample() bool {
	s.i = s.part.next(s.i)
	if s.samples > 0 && s.i >= s.samples {
		return false
	}
	s.r = seeded(s.seed, s.i)
	return true
}

// Counts implements sched.Sampler.
func (s *Random) Counts() bool { return s.part.counts(s.i) }

// Index is the sample under way, from 0.
func (s *Random) Index() int { return s.i }

// Pick implements sched.Sampler: uniform among enabled.
func (s *Random) Pick(enabled *sched.TSet, cur int32) int32 {
	return nth(enabled, s.r.intn(enabled.Len()))
}

// Option implements sched.Sampler: uniform among options.
func (s *Random) Option(options []int32) int32 { return options[s.r.intn(len(options))] }

// Save implements sched.Sampler.
func (s *Random) Save(e *sched.Enc) {
	e.Int(int64(s.i))
	e.Uint(s.r.s)
}

// Load implements sched.Sampler.
func (s *Random) Load(d *sched.Dec) {
	s.i = int(d.Int())
	s.r.s = d.Uint()
}

// nth returns the member of s at index i in creation order.
func nth(s *sched.TSet, i int) int32 {
	var out int32 = -1
	s.Each(func(u int32) {
		if i == 0 {
			out = u
		}
		i--
	})
	return out
}
