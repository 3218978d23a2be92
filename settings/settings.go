// Package settings is the one definition of xbtest's exploration settings.
//
// The same values travel unchanged from the command line (each enum is an
// encoding.TextMarshaler and TextUnmarshaler, so pflag's TextVar parses it)
// through the JSON the command hands to the rewritten test binary, into the
// scheduler, and out again into schedule files, reports and replay. They are
// parsed once, at the edge where they enter, and normalised once
// (Settings.Normalize): nothing downstream re-reads a setting from a string.
//
// Settings has two parts. Semantics decides what a schedule is and does:
// a schedule file records it, and a replay follows the file's semantics,
// never the command line's. Limits decides how much is explored and how,
// not what one schedule means.
package settings

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/xbtest/xbtest/eraser"
)

// Algorithm selects a member of the ExitBlock family (Bruening's thesis,
// Ch. 2), or the unpruned reference explorer.
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
	// detection (scheduler's brute.go).
	Brute
)

var algorithmNames = [...]string{"exitblock", "exitblock-rw", "exitblock-dd", "exitblock-rwdd", "brute"}

func (a Algorithm) String() string {
	if a >= 0 && int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// DetectsDeadlocks reports whether the algorithm reports deadlocks and leaks.
func (a Algorithm) DetectsDeadlocks() bool {
	return a == ExitBlockDD || a == ExitBlockRWDD || a == Brute
}

// MarshalText implements encoding.TextMarshaler.
func (a Algorithm) MarshalText() ([]byte, error) { return textOf(a, len(algorithmNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Algorithm) UnmarshalText(b []byte) error {
	return parseEnum(a, b, algorithmNames[:], "algorithm", "exitblock, exitblock-rw, exitblock-dd, exitblock-rwdd or brute")
}

// Memory is the memory model executions follow.
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

// Buffered reports whether stores go through store buffers: the rewritten
// code must then pass stored values to the scheduler (instrument's
// buffered helpers), so a binary is built for one or the other.
func (m Memory) Buffered() bool { return m == TSO || m == PSO }

// MarshalText implements encoding.TextMarshaler.
func (m Memory) MarshalText() ([]byte, error) { return textOf(m, len(memoryNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Memory) UnmarshalText(b []byte) error {
	return parseEnum(m, b, memoryNames[:], "memory model", "sc, tso or pso")
}

// CAS is what a compare-and-swap orders under a store-buffer memory model:
// the hardware model of Ugawa, Abe and Maeda (OOPSLA 2017, Table 1), not
// Go's semantics, under which every sync/atomic operation is sequentially
// consistent (a full fence).
type CAS int

const (
	// FullCAS: a CAS drains the goroutine's store buffers first, as every
	// synchronization operation does (x86 LOCK CMPXCHG; the paper's
	// "full" CAS).
	FullCAS CAS = iota
	// RelaxedCAS: a CAS orders only the accesses to its own address (the
	// paper's "no memory barrier" CAS): it commits the goroutine's
	// buffered stores to that address, and stores to other addresses stay
	// buffered and may become visible after it. Meaningful under PSO only:
	// under SC and TSO the two coincide (the paper's section 3.1), and
	// Normalize makes it FullCAS there.
	RelaxedCAS
)

var casNames = [...]string{"full", "relaxed"}

func (c CAS) String() string {
	if c >= 0 && int(c) < len(casNames) {
		return casNames[c]
	}
	return fmt.Sprintf("CAS(%d)", int(c))
}

// MarshalText implements encoding.TextMarshaler.
func (c CAS) MarshalText() ([]byte, error) { return textOf(c, len(casNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CAS) UnmarshalText(b []byte) error {
	return parseEnum(c, b, casNames[:], "CAS semantics", "full or relaxed")
}

// Granularity says where atomic blocks may end.
type Granularity int

const (
	// Sync: at synchronization operations, the thesis's granularity.
	Sync Granularity = iota
	// Access: at every shared memory access too (lock-free code).
	Access
)

var granularityNames = [...]string{"sync", "access"}

func (g Granularity) String() string {
	if g >= 0 && int(g) < len(granularityNames) {
		return granularityNames[g]
	}
	return fmt.Sprintf("Granularity(%d)", int(g))
}

// MarshalText implements encoding.TextMarshaler.
func (g Granularity) MarshalText() ([]byte, error) { return textOf(g, len(granularityNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (g *Granularity) UnmarshalText(b []byte) error {
	return parseEnum(g, b, granularityNames[:], "granularity", "sync or access")
}

// Timers says when a due timer may fire, as a horizon: a started timer due
// within it of the virtual now may fire at any scheduling point, ahead of
// goroutines that could run; a later one only when no goroutine can run
// (testing/synctest's rule). Time stays virtual either way.
type Timers time.Duration

const (
	// Synctest: timers fire only when no goroutine can run.
	Synctest Timers = 0
	// Eager: every started timer may fire at any scheduling point.
	Eager Timers = math.MaxInt64
)

// Horizon is how far ahead of the virtual now a timer may be due and fire
// eagerly (0: never eagerly).
func (t Timers) Horizon() time.Duration { return time.Duration(t) }

// String is the -timers value: synctest, eager or a duration.
func (t Timers) String() string {
	switch {
	case t <= 0:
		return "synctest"
	case t == Eager:
		return "eager"
	}
	return time.Duration(t).String()
}

// MarshalText implements encoding.TextMarshaler.
func (t Timers) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: synctest, eager, or a
// positive duration such as 1ms.
func (t *Timers) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "synctest":
		*t = Synctest
	case "eager":
		*t = Eager
	default:
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("invalid timers value %q (want synctest, eager, or a positive duration such as 1ms)", s)
		}
		*t = Timers(d)
	}
	return nil
}

// Checkpoint says how exploration backs up to a branch point (package
// checkpoint has the mechanisms).
type Checkpoint int

const (
	// Auto re-runs the test body while it leaves package-level state
	// unchanged and replaying is cheaper than forking, and forks otherwise.
	Auto Checkpoint = iota
	// Rerun re-runs the test body in process.
	Rerun
	// Fork forks a snapshot of the process before the body, and at branch
	// points that are expensive to reach.
	Fork
)

var checkpointNames = [...]string{"auto", "rerun", "fork"}

func (c Checkpoint) String() string {
	if c >= 0 && int(c) < len(checkpointNames) {
		return checkpointNames[c]
	}
	return fmt.Sprintf("Checkpoint(%d)", int(c))
}

// MarshalText implements encoding.TextMarshaler.
func (c Checkpoint) MarshalText() ([]byte, error) { return textOf(c, len(checkpointNames)) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Checkpoint) UnmarshalText(b []byte) error {
	return parseEnum(c, b, checkpointNames[:], "checkpoint strategy", "rerun, fork or auto")
}

// Semantics are the settings that decide what a schedule is and what it
// does. A schedule file records them; replaying it uses them, whatever the
// command line says.
type Semantics struct {
	Algorithm Algorithm `json:"algorithm"`
	// SyncDeps makes lock enters, channel, Cond and atomic operations
	// count as writes to their object in read/write sets (the proposal of
	// thesis section 2.6). Without it ExitBlock-RW is the thesis's exactly.
	SyncDeps    bool        `json:"sync_deps"`
	Memory      Memory      `json:"memory"`
	Granularity Granularity `json:"granularity"` // Access whenever Memory is buffered (Normalize)
	// CAS: what a compare-and-swap orders (FullCAS unless Memory is PSO).
	CAS  CAS         `json:"cas,omitempty"`
	Race eraser.Mode `json:"race"`
	// MaxSteps bounds the scheduling events (hook calls) of one goroutine
	// in one execution once a second goroutine exists, the thesis's
	// terminateAfter (0: no bound). A goroutine that exceeds it is stopped
	// and reported as possibly non-terminating.
	MaxSteps int64 `json:"max_steps"`
	// FairBlocks: a goroutine that ran that many atomic blocks in a row at
	// the same objects while another thread could run gives way, as Go's
	// preemptive scheduler would make it (0: never).
	FairBlocks int    `json:"fair_blocks"`
	Timers     Timers `json:"timers"`
}

// Limits are the settings that bound and steer exploration without
// changing what one schedule means.
type Limits struct {
	MaxSchedules int           `json:"max_schedules,omitempty"` // 0: no bound
	Timeout      time.Duration `json:"timeout,omitempty"`       // of one test's exploration; 0: no bound
	Stop         bool          `json:"stop,omitempty"`          // stop a test at its first finding
	// Watchdog is how long a controlled goroutine may run without reaching
	// a scheduling point (e.g. blocked in code xbtest does not control)
	// before the execution is abandoned and reported (0: never).
	Watchdog   time.Duration `json:"watchdog"`
	Checkpoint Checkpoint    `json:"checkpoint"`
	// Minimise shortens each finding's schedule before it is reported
	// (fewer preemptions, then fewer blocks); without it a finding is
	// reported as found.
	Minimise bool `json:"minimise"`
	// Strategy is the order of exploration (strategy.go); Seed seeds the
	// sampling ones (pct, random), Samples bounds them (0: until another
	// bound), PCTDepth is PCT's bug depth d.
	Strategy Strategy `json:"strategy,omitempty"`
	Seed     uint64   `json:"seed,omitempty"`
	Samples  int      `json:"samples,omitempty"`
	PCTDepth int      `json:"pct_depth,omitempty"`
}

// Settings are all the exploration settings.
type Settings struct {
	Semantics
	Limits
}

// Default returns the settings of `xbtest` without flags.
func Default() Settings {
	return Settings{
		Semantics: Semantics{
			Algorithm:  ExitBlockRWDD,
			SyncDeps:   true,
			Race:       eraser.HB,
			MaxSteps:   1000000,
			FairBlocks: 100,
			// A timer due within a millisecond may fire while goroutines
			// could run (README.md, "Virtual time", says why).
			Timers: Timers(time.Millisecond),
		},
		Limits: Limits{
			Watchdog:   10 * time.Second,
			Checkpoint: Auto,
			Minimise:   true,
			Seed:       DefaultSeed,
			PCTDepth:   DefaultPCTDepth,
		},
	}
}

// FileDefaults are the semantics a schedule file means by a field it does
// not have: files written before a setting existed were found under what
// xbtest did then (no eager timers, fairness after 100 blocks).
func FileDefaults() Semantics {
	s := Default().Semantics
	s.Timers = Synctest
	return s
}

// Normalize applies the rules that tie settings together and checks the
// bounds. Store buffers need every access to be a scheduling point, so a
// buffered memory model implies access granularity, and access granularity
// implies SyncDeps; a relaxed CAS differs from a full one only under PSO:
// this is the only place that says so.
func (s *Semantics) Normalize() error {
	if s.Memory != PSO {
		s.CAS = FullCAS
	}
	if s.Memory.Buffered() {
		s.Granularity = Access
	}
	if s.Granularity == Access {
		// Blocks then end inside critical sections: ExitBlock-RW is sound
		// only if lock operations are in the read/write sets.
		s.SyncDeps = true
	}
	if s.MaxSteps < 0 || s.FairBlocks < 0 {
		return errors.New("bounds must not be negative")
	}
	return nil
}

// Normalize normalises the semantics and checks the limits.
func (s *Settings) Normalize() error {
	if err := s.Semantics.Normalize(); err != nil {
		return err
	}
	if s.MaxSchedules < 0 || s.Timeout < 0 || s.Watchdog < 0 {
		return errors.New("bounds must not be negative")
	}
	return s.checkStrategy()
}

type enum interface {
	~int
	String() string
}

func textOf[E enum](e E, n int) ([]byte, error) {
	if e < 0 || int(e) >= n {
		return nil, fmt.Errorf("invalid %s", e)
	}
	return []byte(e.String()), nil
}

func parseEnum[E ~int](e *E, b []byte, names []string, what, want string) error {
	for i, n := range names {
		if n == string(b) {
			*e = E(i)
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q (want %s)", what, b, want)
}
