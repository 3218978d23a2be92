package xbtest

import (
	"context"
	"testing"

	"github.com/xbtest/xbtest/settings"
)

// BenchmarkCachedStart is the cost of a second run of an unchanged
// package: ns/op is the wall time of a whole run (loading, the cache key,
// the test binary's start, one schedule, the report) whose test binary
// comes from the build cache. The first run, which builds it, is before
// the timer.
//
//	go test . -run '^$' -bench CachedStart -benchtime 5x
func BenchmarkCachedStart(b *testing.B) {
	s := settings.Default()
	s.MaxSchedules = 1
	opt := Options{Packages: []string{"./corpus/gc/phases"}, Run: "^TestMarkTypeII$", Settings: s,
		Parallel: 1, ParallelPackages: 1, BuildCache: b.TempDir()}
	explore := func() *Package {
		res, err := Run(context.Background(), opt)
		if err != nil {
			b.Fatal(err)
		}
		p := res.Packages[0]
		if len(p.Tests) != 1 || p.Tests[0].Result == nil || p.Tests[0].Result.Schedules != 1 {
			b.Fatalf("%+v", p)
		}
		return p
	}
	if explore().CachedBuild {
		b.Fatal("the first run found its binary in an empty cache")
	}
	for b.Loop() {
		if !explore().CachedBuild {
			b.Fatal("the second run built its binary again")
		}
	}
}
