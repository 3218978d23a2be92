package engine

import (
	randv1 "math/rand"
	randv2 "math/rand/v2"
)

// Randomness must be fixed by the schedule, or a replayed prefix would not
// reproduce. The rewriter redirects the top-level functions of math/rand and
// math/rand/v2 to these sources, which every execution reseeds identically;
// outside an execution they are the packages' own.

// Rand returns the math/rand source of the current execution.
func Rand() *randv1.Rand {
	r, _ := enter()
	if r == nil {
		return randv1.New(randv1.NewSource(randv1.Int63()))
	}
	if r.rand1 == nil {
		r.rand1 = randv1.New(randv1.NewSource(1))
	}
	return r.rand1
}

// RandV2 returns the math/rand/v2 source of the current execution.
func RandV2() *randv2.Rand {
	r, _ := enter()
	if r == nil {
		return randv2.New(randv2.NewPCG(randv2.Uint64(), randv2.Uint64()))
	}
	if r.rand2 == nil {
		r.rand2 = randv2.New(randv2.NewPCG(1, 2))
	}
	return r.rand2
}
