package engine

import (
	"testing"
	"time"
)

// TestWatchdogCountsOnlyWatchedTime: the driver's watchdog reports an
// execution that made no progress for the watchdog period, but not one it
// did not watch for that long. A forked child starts with its snapshot's
// clock: the driver's last look may be long ago (the snapshot ran nothing
// but its loop over children), and the child may run the driver before the
// goroutine taking over says so. That reported goroutines "stuck" that had
// not had the chance to run.
func TestWatchdogCountsOnlyWatchedTime(t *testing.T) {
	const watchdog = 400 * time.Millisecond
	r := &run{cfg: watchdogConfig(watchdog), done: make(chan struct{})}
	r.multiA.Store(true) // several goroutines: no sequential computation
	w := watch(t, r)
	early := "the watchdog reported a stall before the execution was watched for its period"
	w.tick(early)
	time.Sleep(3 * watchdog) // the driver does not run: no tick
	w.tick(early)
	w.tick(early)
	// Watched from here on, with no progress: reported after the period.
	w.stalledAfter(time.Now(), watchdog-w.period)
}

// TestWatchdogGivesASpawnAFullPeriod: a test goroutine that computed alone
// for longer than the watchdog (allowed: a sequential computation) and then
// starts a second goroutine is on its way to a scheduling point; the driver
// may look right then, after the flag that says there are several
// goroutines is set and before the scheduling point. That look is not the
// end of a period without progress: the watchdog starts a new one.
func TestWatchdogGivesASpawnAFullPeriod(t *testing.T) {
	const watchdog = 400 * time.Millisecond
	defer func() { computingHook = computing }()
	computingHook = func() bool { return true } // the lone goroutine runs
	r := &run{cfg: watchdogConfig(watchdog), done: make(chan struct{})}
	w := watch(t, r)
	early := "the watchdog reported a stall while the goroutine computed alone or had just started another"
	for start := time.Now(); time.Since(start) < 2*watchdog; time.Sleep(w.period) {
		w.tick(early)
	}
	// The computation ends in a go statement: several goroutines from here,
	// the scheduling point not reached yet.
	r.multiA.Store(true)
	spawned := time.Now()
	for ok := true; ok; ok = time.Since(spawned) < watchdog-2*w.period {
		w.tick(early)
		time.Sleep(w.period)
	}
	// No progress since: reported a full period after the spawn.
	w.stalledAfter(spawned, watchdog)
}

// watched is a run's watchdog (run.wait) looking at ticks the test sends.
type watched struct {
	t       *testing.T
	ticks   chan time.Time
	stalled chan time.Time // when wait reported a stall; closed when it returned
	period  time.Duration
}

func watch(t *testing.T, r *run) *watched {
	w := &watched{t: t, ticks: make(chan time.Time), stalled: make(chan time.Time, 1), period: watchdogTick(r.cfg.Watchdog)}
	go func() {
		if !r.wait(&time.Ticker{C: w.ticks}) {
			w.stalled <- time.Now()
		}
		close(w.stalled)
	}()
	return w
}

// tick is one look of the watchdog; a stall reported before it fails the
// test with early.
func (w *watched) tick(early string) {
	select {
	case w.ticks <- time.Now():
	case <-w.stalled:
		w.t.Fatal(early)
	}
}

// stalledAfter ticks every period until the watchdog reports a stall, which
// must come at least min after from.
func (w *watched) stalledAfter(from time.Time, min time.Duration) {
	deadline := time.After(30 * time.Second)
	for {
		select {
		case at, ok := <-w.stalled:
			if !ok {
				w.t.Fatal("wait returned true without the execution ending")
			}
			if got := at.Sub(from); got < min {
				w.t.Fatalf("stall reported %v after, want at least %v", got, min)
			}
			return
		case w.ticks <- time.Now():
			time.Sleep(w.period)
		case <-deadline:
			w.t.Fatal("an execution without progress was never reported")
		}
	}
}

// A lone goroutine the watchdog finds in one of the runtime's passing
// states is computing; one blocked on something that may never come is
// not. A goroutine locked to its thread says so in its state, which once
// made a computing one look blocked.
func TestRunningState(t *testing.T) {
	for header, want := range map[string]bool{
		"goroutine 7 [running]:":                                    true,
		"goroutine 7 [runnable]:":                                   true,
		"goroutine 7 [runnable, locked to thread]:":                 true,
		"goroutine 7 [running (scan)]:":                             true,
		"goroutine 7 [preempted]:":                                  true,
		"goroutine 7 [GC assist wait]:":                             true,
		"goroutine 7 [GC assist marking, 2 minutes]:":               true,
		"goroutine 7 [wait for GC cycle]:":                          true,
		"goroutine 7 [running labels:{\"k\": \"a],b\"}]:":           true,
		"goroutine 7 [chan receive]:":                               false,
		"goroutine 7 [chan receive, 12 minutes, locked to thread]:": false,
		"goroutine 7 [select (no cases)]:":                          false,
		"goroutine 7 [sleep]:":                                      false,
		"goroutine 7 [syscall]:":                                    false,
		"goroutine 7 [IO wait]:":                                    false,
		"goroutine 7 [sync.Mutex.Lock]:":                            false,
		"goroutine 7 [semacquire (scan)]:":                          false,
		"goroutine 7 [chan send (leaked)]:":                         false,
		"garbage":                                                   false,
	} {
		if got := runningState(header); got != want {
			t.Errorf("runningState(%q) = %v, want %v", header, got, want)
		}
	}
}

func watchdogConfig(d time.Duration) *Config {
	cfg := &Config{}
	cfg.Watchdog = d
	return cfg
}
