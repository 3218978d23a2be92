package sched

// Sampler is a sampling policy (random walk, PCT; package
// scheduler/internal/sample): instead of walking the ExitBlock tree, the
// explorer runs one path per sample from the start of the test body and
// asks the sampler at each of the tree's choice points which child to
// take. The explorer keeps its event handling (the enabled set, lock block
// sets and their retries, ticks, store-buffer flushes, fairness), so a
// sample takes the same choice points a tree walk branches at.
type Sampler interface {
	// StartSample: a new sample starts from the beginning of the test
	// body; false when none is left (the sampler's own bound).
	StartSample() bool
	// Pick picks the thread that runs the next block among enabled (not
	// empty); cur ran the block that just ended (-1: none, the start of
	// an execution).
	Pick(enabled *TSet, cur int32) int32
	// Option picks one of options at a notify, select or timer choice
	// point (options has at least one member).
	Option(options []int32) int32
	// Counts reports whether the sample under way is this process's to
	// count: a shard of the samples (package sample's Part) also runs
	// sample 0, which every process needs, and leaves it to shard 0.
	Counts() bool
	// Save and Load hand the sampler's state between processes (fork
	// checkpoints), as Strategy's do.
	Save(e *Enc)
	Load(d *Dec)
}
