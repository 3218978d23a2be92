package scheduler

import (
	"fmt"
	"time"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/eraser"
)

// Algorithm selects a member of the ExitBlock family (thesis Ch. 2).
type Algorithm int

const (
	// ExitBlock explores every schedule of atomic blocks (Figs 2.7, 2.9).
	ExitBlock Algorithm = iota
	// ExitBlockRW prunes orders of blocks whose reads and writes do not
	// intersect (Fig 2.12).
	ExitBlockRW
	// ExitBlockDD is ExitBlock plus deadlock detection; it finds a deadlock
	// if one exists (Theorem 5).
	ExitBlockDD
	// ExitBlockRWDD is ExitBlock-RW plus deadlock detection, the default.
	ExitBlockRWDD
	// Brute is the unpruned reference explorer, for checking the others
	// (slow): every enabled goroutine gets a branch at every scheduling
	// point of every goroutine, which here is before every synchronization
	// operation (a lock enter included), after every go statement and, at
	// access granularity, before every shared access; with deadlock
	// detection. It is the exhaustive oracle of the scheduler's own tests
	// (exitblock.go) plus a branch point before every operation, so that no
	// block spans two synchronization operations (brute.go).
	Brute
)

var algorithmNames = [...]string{"exitblock", "exitblock-rw", "exitblock-dd", "exitblock-rwdd", "brute"}

func (a Algorithm) String() string {
	if a >= 0 && int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// ParseAlgorithm parses the names printed by Algorithm.String.
func ParseAlgorithm(s string) (Algorithm, error) {
	for i, n := range algorithmNames {
		if n == s {
			return Algorithm(i), nil
		}
	}
	return 0, fmt.Errorf("unknown algorithm %q (want exitblock, exitblock-rw, exitblock-dd, exitblock-rwdd or brute)", s)
}

// DetectsDeadlocks reports whether the algorithm reports deadlocks and leaks.
func (a Algorithm) DetectsDeadlocks() bool {
	return a == ExitBlockDD || a == ExitBlockRWDD || a == Brute
}

// Memory is the memory model executions follow (see tso.go).
type Memory int

const (
	// SC: every access reaches memory at once (sequential consistency).
	SC Memory = iota
	// TSO: x86-TSO, a FIFO store buffer per goroutine.
	TSO
	// PSO: SPARC PSO, a FIFO store buffer per goroutine and address.
	PSO
)

var memoryNames = [...]string{"sc", "tso", "pso"}

func (m Memory) String() string {
	if m >= 0 && int(m) < len(memoryNames) {
		return memoryNames[m]
	}
	return fmt.Sprintf("Memory(%d)", int(m))
}

// ParseMemory parses the names printed by Memory.String.
func ParseMemory(s string) (Memory, error) {
	for i, n := range memoryNames {
		if n == s {
			return Memory(i), nil
		}
	}
	return 0, fmt.Errorf("unknown memory model %q (want sc, tso or pso)", s)
}

// Config controls the exploration of one test.
type Config struct {
	Algorithm Algorithm
	// Memory is the memory model; TSO and PSO imply AccessGranularity.
	Memory Memory
	// AccessGranularity makes every shared memory access a block boundary
	// (-granularity access), not only synchronization operations.
	AccessGranularity bool
	// SyncDeps makes lock enters, channel, Cond and atomic operations count
	// as writes to their object in read/write sets (the proposal of thesis
	// section 2.6). Without it ExitBlock-RW is the thesis's exactly.
	SyncDeps bool
	// MaxSchedules stops exploration after that many schedules (0: no bound).
	MaxSchedules int
	// MaxSteps bounds the scheduling events (hook calls) of one goroutine in
	// one execution once a second goroutine exists, the thesis's
	// terminateAfter (0: no bound). A goroutine that exceeds it is stopped
	// and reported as possibly non-terminating.
	MaxSteps int64
	// FairBlocks: a goroutine that ran that many atomic blocks in a row
	// while another thread could run gives way, as Go's preemptive
	// scheduler would make it (exitblock.go, "Fairness"); 0: never.
	FairBlocks int
	// EagerTimers: a started timer whose deadline is within EagerTimers of
	// the virtual now may fire at any scheduling point, ahead of goroutines
	// that could run (eager.go); EagerAlways: whatever its deadline; 0:
	// only when no goroutine can run (testing/synctest's rule).
	EagerTimers time.Duration
	// Timeout bounds the exploration of the test (0: no bound).
	Timeout time.Duration
	// Stop ends exploration at the first finding.
	Stop bool
	// Watchdog is how long a controlled goroutine may run without reaching
	// a scheduling point (e.g. blocked in code xbtest does not control)
	// before the execution is abandoned and reported.
	Watchdog time.Duration
	// Race selects race detection on every explored execution.
	Race eraser.Mode
	// Backer is how exploration backs up to a branch point.
	Backer checkpoint.Backer
	// Trace makes every execution record positions (slow; used to replay a
	// finding for its report).
	Trace bool
	// Minimise shortens each finding's schedule before it is reported
	// (fewer preemptions, then fewer blocks; see minimise.go).
	Minimise bool
	// Progress, if set, is called about once a second during exploration.
	Progress func(schedules, findings int)
	// Found, if set, is called with each distinct finding when exploration
	// first sees it, before it is described (its schedule is replayed and
	// shortened at the end): what a crash or a kill must not lose. It may
	// run in a forked process.
	Found func(f *Finding)

	// oracle replaces the algorithm by exhaustive enumeration (tests only):
	// at every block end, and with oracleSpawns at every go statement too,
	// each other enabled thread gets a branch. It is the reference the
	// ExitBlock family is checked against.
	oracle, oracleSpawns bool
	// brute adds to the oracle a branch point before every synchronization
	// operation (Algorithm Brute; see brute.go).
	brute bool
	// noSpawnBranches turns the spawn branches off (tests only): the
	// thesis's algorithm exactly, whose tree the oracle without spawns
	// enumerates.
	noSpawnBranches bool
	// onPath observes every complete path (tests only): its decisions and
	// how many threads were still delayed at its end.
	onPath func(path []decision, delayed int)
	// onFinding observes the first occurrence of every finding in every
	// execution (tests only).
	onFinding func(f *Finding)
}

// DefaultConfig returns the configuration of `xbtest` without flags.
func DefaultConfig() Config {
	return Config{
		Algorithm:  ExitBlockRWDD,
		SyncDeps:   true,
		Race:       eraser.HB,
		MaxSteps:   1000000,
		FairBlocks: 100,
		// A timer due within a millisecond may fire while goroutines
		// could run (eager.go; README.md, "Virtual time", says why).
		EagerTimers: time.Millisecond,
		Watchdog:    10 * time.Second,
		Backer:      checkpoint.Rerun{},
		Minimise:    true,
	}
}
