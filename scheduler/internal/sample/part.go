package sample

// Part is the share of the samples one shard of n runs (-shard, -parallel):
// shard i takes samples i, i+n, i+2n... of the sequence one process runs,
// so that n shards together run exactly its samples (sample i depends only
// on the seed and i). Every shard runs sample 0 first, and only shard 0
// counts it: PCT learns the length of a sample from it (PCT's k), which
// each shard needs before its own samples.
type Part struct {
	Index, Count int // shard Index of Count; Count 0 or 1: every sample
}

// first returns the index of the part's first sample after sample 0.
func (p Part) first() int {
	if p.Count <= 1 {
		return 1
	}
	if p.Index == 0 {
		return p.Count
	}
	return p.Index
}

// step returns how far the part's next sample is.
func (p Part) step() int { return max(p.Count, 1) }

// next returns the sample after i of the part.
func (p Part) next(i int) int {
	if i == 0 {
		return p.first()
	}
	return i + p.step()
}

// counts reports whether the part counts sample i.
func (p Part) counts(i int) bool { return p.Count <= 1 || i%p.Count == p.Index }
