package scheduler_test

import (
	"testing"
	"unsafe"

	"github.com/xbtest/xbtest/eraser"
	xb "github.com/xbtest/xbtest/scheduler"
)

// BenchmarkChannelBlocks measures a block ending in a channel operation: two
// goroutines hand a token back and forth over an unbuffered channel; every
// operation ends a block (a branch pushed, a switch). One op is one round.
func BenchmarkChannelBlocks(b *testing.B) {
	const rounds = 1000
	cfg := xb.DefaultConfig()
	cfg.MaxSchedules = 1
	cfg.MaxSteps = 0
	b.ResetTimer()
	for i := 0; i < b.N; i += rounds {
		xb.Explore("switch", func(t *xb.T) {
			ping, pong := xb.MakeChan[int](0), xb.MakeChan[int](0)
			xb.Go(func() {
				for range rounds / 2 {
					xb.Send(pong, xb.Recv(ping))
				}
			})
			for j := range rounds / 2 {
				xb.Send(ping, j)
				xb.Recv(pong)
			}
		}, cfg)
	}
}

func benchSchedules(b *testing.B, body func(*xb.T), cfg xb.Config) {
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		res := xb.Explore("bench", body, cfg)
		if res.Internal != "" || len(res.Findings) > 0 {
			b.Fatal(res.Internal, res.Findings)
		}
		total += res.Schedules
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "schedules/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/schedule")
}

// BenchmarkPerformance33 is Performance 3 3 (Fig 4.1) with every hook and
// read/write set on: the default algorithm and -sync-deps.
func BenchmarkPerformance33(b *testing.B) {
	benchSchedules(b, perfPlain(3, 3), xb.DefaultConfig())
}

// BenchmarkPerformance33Java is the javasafe-mirroring port (31 schedules).
func BenchmarkPerformance33Java(b *testing.B) {
	benchSchedules(b, perfJava(3, 3), xb.DefaultConfig())
}

// BenchmarkLockOps20 is three goroutines doing about 20 lock operations in
// all on two shared mutexes, with shared data.
func BenchmarkLockOps20(b *testing.B) { benchSchedules(b, lockOps20, xb.DefaultConfig()) }

// BenchmarkLockOps20RaceOff is BenchmarkLockOps20 without race detection:
// the ratio of the two is the slowdown detection costs.
func BenchmarkLockOps20RaceOff(b *testing.B) {
	cfg := xb.DefaultConfig()
	cfg.Race = eraser.Off
	benchSchedules(b, lockOps20, cfg)
}

// BenchmarkPerformance33RaceOff is BenchmarkPerformance33 without race
// detection.
func BenchmarkPerformance33RaceOff(b *testing.B) {
	cfg := xb.DefaultConfig()
	cfg.Race = eraser.Off
	benchSchedules(b, perfPlain(3, 3), cfg)
}

// lockOps20 has three goroutines take two mutexes alternately, each
// guarding its own counter (the locking discipline holds).
func lockOps20(t *xb.T) {
	m := xb.Slice(make([]xb.Mutex, 2))
	x := xb.Slice(make([]int, 2))
	sp := xb.New(new(spawner))
	defer sp.wg.Wait()
	for g := range 3 {
		sp.goWait(func() {
			for i := range 3 {
				k := (g + i) % 2
				m[k].Lock()
				wr(&x[k], rd(&x[k])+1)
				m[k].Unlock()
			}
		})
	}
}

// BenchmarkMemoryHookTwoGoroutinesRaceOff is the hook with read/write sets
// but without race detection.
func BenchmarkMemoryHookTwoGoroutinesRaceOff(b *testing.B) {
	cfg := xb.DefaultConfig()
	cfg.Race = eraser.Off
	memoryHookTwo(b, cfg)
}

var hookSink int

// BenchmarkMemoryHook is the cost of one Read hook in sequential code (one
// goroutine: nothing to schedule).
func BenchmarkMemoryHook(b *testing.B) {
	cfg := xb.DefaultConfig()
	cfg.MaxSteps = 0
	x := new(int)
	n := b.N
	b.ResetTimer()
	xb.Explore("hooks", func(t *xb.T) {
		for range n {
			xb.Read(unsafe.Pointer(x), 8, 0)
		}
	}, cfg)
}

// BenchmarkMemoryHookTwoGoroutines is the same with a second goroutine
// alive: read/write sets are recorded.
func BenchmarkMemoryHookTwoGoroutines(b *testing.B) { memoryHookTwo(b, xb.DefaultConfig()) }

func memoryHookTwo(b *testing.B, cfg xb.Config) {
	cfg.MaxSteps = 0
	cfg.MaxSchedules = 1
	x := xb.New(new(int))
	n := b.N
	b.ResetTimer()
	xb.Explore("hooks", func(t *xb.T) {
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Recv(done) })
		for range n {
			xb.Read(unsafe.Pointer(x), 8, 0)
		}
		xb.Send(done, true)
	}, cfg)
}
