// Package sample holds the sampling policies of exploration (-strategy
// random and pct): sched.Sampler implementations that the ExitBlock
// explorer asks at every choice point of one path per sample (package
// exitblock, sample.go). They see only threads by creation index and the
// options of a choice point, so a sample takes exactly the choice points a
// tree walk branches at. Both are seeded: the same seed gives the same
// samples, and sample i depends only on the seed and i.
package sample
