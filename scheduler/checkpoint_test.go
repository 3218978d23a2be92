package scheduler_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/xbtest/xbtest/checkpoint"
	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// outcome is what must not depend on how exploration backs up.
func outcome(res *result.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schedules=%d aborted=%d complete=%v", res.Schedules, res.Aborted, res.Complete)
	for _, f := range res.Findings {
		var ids []string
		for _, g := range f.Goroutines {
			ids = append(ids, g.ID+"@"+g.Pos)
		}
		fmt.Fprintf(&b, "\n%s %q at %s on schedule %d (seen %d times) %v, %d blocks", f.Kind, f.Message, f.Pos, f.Schedule, f.Count, ids, len(f.Blocks))
	}
	return b.String()
}

func backers() map[string]func() checkpoint.Backer {
	return map[string]func() checkpoint.Backer{
		"fork":           func() checkpoint.Backer { return checkpoint.NewFork(false) },
		"auto":           func() checkpoint.Backer { return checkpoint.NewFork(true) },
		"fork+snapshots": func() checkpoint.Backer { return checkpoint.NewFork(false).SnapshotEverywhere() },
		"auto+snapshots": func() checkpoint.Backer { return checkpoint.NewFork(true).SnapshotEverywhere() },
	}
}

// smallTree names the programs whose schedule trees are small enough to
// explore with a snapshot at every branch point.
var smallTree = map[string]bool{"SplitSync": true, "NoEraser": true, "Deadlock": true}

// Every strategy explores the same schedules and finds the same things.
func TestCheckpointStrategiesAgree(t *testing.T) {
	progs := []struct {
		name string
		body func(*xb.T)
	}{
		{"SplitSync", splitSync}, {"NoEraser", noEraser}, {"Deadlock", deadlock},
		{"DeadlockWait", deadlockWait}, {"BufferNotify", bufferNotify},
		{"Performance_3_2", perfPlain(3, 2)}, {"PerformanceJava_2_2", perfJava(2, 2)},
	}
	if testing.Short() || !longSuite {
		progs = progs[:2]
	}
	if only := os.Getenv("XBTEST_ONLY"); only != "" {
		progs = slices.DeleteFunc(progs, func(p struct {
			name string
			body func(*xb.T)
		}) bool {
			return p.name != only
		})
	}
	// ExitBlock-RW alone (thesisRW) explores a subset of the trees of
	// these two and takes no path of its own through the backers.
	cfgs := map[string]xb.Config{"rwdd": xb.DefaultConfig(), "dd": xb.ThesisConfig(settings.ExitBlockDD)}
	for _, p := range progs {
		for cname, cfg := range cfgs {
			// BufferNotify's trees (75,293 and 70,160 schedules) take
			// minutes to fork through; the explorer's order is the same
			// under every strategy, so its first 3,000 schedules are as
			// good a comparison (XBTEST_SNAPSHOT_STRESS explores them all).
			if p.name == "BufferNotify" && os.Getenv("XBTEST_SNAPSHOT_STRESS") == "" {
				cfg.MaxSchedules = 3000
			}
			want := outcome(xb.Explore(p.name, p.body, cfg))
			for bname, mk := range backers() {
				if strings.HasSuffix(bname, "+snapshots") && !smallTree[p.name] && os.Getenv("XBTEST_SNAPSHOT_STRESS") == "" {
					// A snapshot at every branch point makes a chain of
					// processes as deep as the path and forks about once
					// per branch; for the large trees that takes minutes,
					// so it runs on demand:
					// XBTEST_SNAPSHOT_STRESS=1 go test ./scheduler -run TestCheckpointStrategiesAgree
					continue
				}
				c := cfg
				c.Backer = mk()
				start := time.Now()
				res := xb.Explore(p.name, p.body, c)
				if res.Internal != "" {
					t.Fatalf("%s %s under %s: %s", p.name, cname, bname, res.Internal)
				}
				t.Logf("%s %s %s: %v %s", p.name, cname, bname, time.Since(start), res.Notes)
				if got := outcome(res); got != want {
					t.Errorf("%s %s under %s:\n%s\nwant (rerun):\n%s", p.name, cname, bname, got, want)
				}
				if !slices.ContainsFunc(res.Notes, func(n string) bool {
					return strings.HasPrefix(n, "checkpoint "+strings.TrimSuffix(bname, "+snapshots"))
				}) {
					t.Errorf("%s %s under %s: no note on the strategy: %q", p.name, cname, bname, res.Notes)
				}
			}
		}
	}
}

// Package-level state, registered as the rewriter registers it.
var (
	registry   = map[string]int{}
	registered int
)

func init() {
	xb.GlobalOf(&registry, "scheduler_test.registry")
	xb.GlobalOf(&registered, "scheduler_test.registered")
}

// registerAll has two goroutines register a name each in a registry kept
// by reg, with the SplitSync bug (the id read and written in two critical
// sections).
func registerAll(names map[string]int, counter *int) func(*xb.T) {
	return func(t *xb.T) {
		sp := xb.New(new(spawner))
		mu := xb.New(new(xb.Mutex))
		ids := xb.New(new([2]int))
		for i, name := range []string{"alpha", "beta"} {
			sp.goWait(func() {
				mu.Lock()
				id := rd(counter) + 1
				mu.Unlock()
				mu.Lock()
				if _, dup := names[name]; dup {
					panic(name + " registered twice")
				}
				xb.Write(unsafe.Pointer(counter), 8, 0)
				*counter = id
				names[name] = id
				ids[i] = id
				mu.Unlock()
			})
		}
		sp.wg.Wait()
		if ids[0] == ids[1] {
			t.Errorf("alpha and beta got the same id %d", ids[0])
		}
	}
}

// A test that keeps state in package-level variables explores exactly like
// the same test with its state in a value, under fork and auto; rerun
// refuses after the first schedule, naming the variable.
func TestCheckpointPackageState(t *testing.T) {
	local := func(t *xb.T) {
		names, counter := map[string]int{}, xb.New(new(int))
		registerAll(names, counter)(t)
	}
	global := func(t *xb.T) { registerAll(registry, &registered)(t) }
	want := outcome(explore(t, "Local", local, xb.DefaultConfig()))
	if !strings.Contains(want, "assertion") {
		t.Fatalf("the local registry's bug is not found:\n%s", want)
	}
	for _, name := range []string{"fork", "auto"} {
		cfg := xb.DefaultConfig()
		cfg.Backer = backers()[name]()
		res := explore(t, "Global", global, cfg)
		if got := outcome(res); got != want {
			t.Errorf("package-level registry under %s:\n%s\nwant (the local registry):\n%s", name, got, want)
		}
		if name == "auto" {
			// The first schedule ran in the test process itself.
			if !slices.ContainsFunc(res.Notes, func(n string) bool {
				return strings.Contains(n, "changed package-level variable scheduler_test.registry")
			}) {
				t.Errorf("auto does not say why it forks: %q", res.Notes)
			}
			clear(registry)
			registered = 0
		}
		if len(registry) != 0 || registered != 0 {
			t.Fatalf("the test process's package state changed under %s: %v %d", name, registry, registered)
		}
	}
	cfg := xb.DefaultConfig()
	cfg.Backer = checkpoint.Rerun{}
	res := xb.Explore("Global", global, cfg)
	if res.Schedules != 1 || res.Complete || !strings.Contains(res.Internal, "exploration stopped: the test changed package-level variable scheduler_test.registry") {
		t.Errorf("rerun with package state: %d schedules, complete %v, %q", res.Schedules, res.Complete, res.Internal)
	}
	clear(registry)
	registered = 0
}

// viaPipe has each execution wait on the network poller before its
// goroutines start: a goroutine xbtest does not control (as a library's
// would be) writes to a pipe after a moment, and the test goroutine reads
// it. A forked child must be woken by its own poller: were the epoll
// instance shared with the other processes of the tree, the pipe's
// readiness could go to one of them, and the child would wait until its
// watchdog gave up.
func viaPipe(body func(*xb.T)) func(*xb.T) {
	return func(t *xb.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatalf("pipe: %v", err)
		}
		defer r.Close()
		defer w.Close()
		go func() {
			time.Sleep(time.Millisecond)
			w.Write([]byte{1})
		}()
		var b [1]byte
		if n, err := r.Read(b[:]); n != 1 || err != nil {
			t.Fatalf("read %d bytes: %v", n, err)
		}
		body(t)
	}
}

func TestForkedChildPollsAlone(t *testing.T) {
	body := viaPipe(splitSync)
	cfg := xb.DefaultConfig()
	cfg.Watchdog = 5 * time.Second
	want := outcome(explore(t, "SplitSync via a pipe", body, cfg))
	for _, name := range []string{"fork", "fork+snapshots"} {
		cfg.Backer = backers()[name]()
		res := explore(t, "SplitSync via a pipe", body, cfg)
		if got := outcome(res); got != want {
			t.Errorf("under %s:\n%s\nwant (rerun):\n%s", name, got, want)
		}
		// The pipe is still open at the branch points: a snapshot's
		// children would share it.
		if name == "fork+snapshots" && !slices.ContainsFunc(res.Notes, func(n string) bool {
			return strings.HasPrefix(n, "checkpoint: no branch-point snapshots: the network poller watches a pipe (fd ")
		}) {
			t.Errorf("under %s: no note on the pipe: %q", name, res.Notes)
		}
	}
}

// With something a forked child would lose, fork and auto re-run the test
// body instead, and say why. Each hazard is made in a process of its own
// (os/signal's receiver, for one, never goes away).
func TestForkHazards(t *testing.T) {
	if h := os.Getenv("XBTEST_HAZARD"); h != "" {
		exploreWithHazard(t, h)
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary once per hazard")
	}
	for _, h := range []struct{ name, why string }{
		{"signal", "signal.Notify is in use (os/signal's receiver would stop in a forked child)"},
		{"locked", "a goroutine is locked to its OS thread (runtime.LockOSThread) in "},
		{"syscall", "a goroutine xbtest does not control is in a system call in github.com/xbtest/xbtest/scheduler_test.exploreWithHazard.func2"},
		{"socket", "the network poller watches a socket (fd "},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestForkHazards$", "-test.v")
		cmd.Env = append(os.Environ(), "XBTEST_HAZARD="+h.name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", h.name, err, out)
			continue
		}
		for _, backer := range []string{"fork", "auto"} {
			want := "checkpoint " + backer + ": forking is unsafe here (" + h.why
			if !strings.Contains(string(out), want) {
				t.Errorf("%s under %s: no note %q in\n%s", h.name, backer, want, out)
			}
		}
	}
}

func exploreWithHazard(t *testing.T, hazard string) {
	release := make(chan struct{})
	defer close(release)
	switch hazard {
	case "signal":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGUSR1)
		defer signal.Stop(c)
	case "locked":
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			<-release
		}()
		<-locked
	case "syscall":
		var p [2]int
		if err := syscall.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		go func() {
			var b [1]byte
			syscall.Read(p[0], b[:]) // blocks in the kernel until the write below
		}()
		defer syscall.Write(p[1], []byte{1})
		time.Sleep(100 * time.Millisecond) // until it is in the read
	case "socket":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	default:
		t.Fatalf("unknown hazard %q", hazard)
	}
	want := outcome(explore(t, "SplitSync", splitSync, xb.DefaultConfig()))
	for _, name := range []string{"fork", "auto"} {
		cfg := xb.DefaultConfig()
		cfg.Backer = backers()[name]()
		res := explore(t, "SplitSync", splitSync, cfg)
		if got := outcome(res); got != want {
			t.Errorf("under %s with %s:\n%s\nwant (rerun):\n%s", name, hazard, got, want)
		}
		t.Logf("notes under %s: %s", name, strings.Join(res.Notes, "; "))
	}
}

var spinning atomic.Bool

// A forked child that hangs is killed by the watchdog of the process tree
// and reported, not waited for: whether it is blocked in a system call
// (no CPU, no scheduling events) or spins in code xbtest does not control
// (CPU, but no scheduling events; in a forked process nothing preempts it,
// so the execution's own watchdog never gets to run).
func TestForkedChildThatHangsIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the watchdog")
	}
	for _, c := range []struct {
		name string
		hang func(*xb.T)
		want string
	}{
		{"blocked", func(t *xb.T) {
			var p [2]int
			if err := syscall.Pipe(p[:]); err != nil {
				t.Fatalf("pipe: %v", err)
			}
			var b [1]byte
			syscall.Read(p[0], b[:]) // nobody writes
		}, ") made no progress and was killed before handing back its results"},
		{"spinning", func(*xb.T) {
			for !spinning.Load() {
			}
		}, "s without reaching a scheduling point (a busy loop in code xbtest does not rewrite, which nothing preempts in a forked process) and was killed before handing back its results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := xb.DefaultConfig()
			cfg.Watchdog = 200 * time.Millisecond
			f := checkpoint.NewFork(false)
			f.SetWatchdog(time.Second)
			cfg.Backer = f
			start := time.Now()
			res := xb.Explore("Hang", func(t *xb.T) {
				splitSync(t)
				c.hang(t)
			}, cfg)
			if res.Complete || !strings.HasPrefix(res.Internal, "checkpoint: a forked child (pid ") || !strings.Contains(res.Internal, c.want) ||
				c.name == "spinning" && !strings.Contains(res.Internal, ") ran for ") {
				t.Errorf("complete %v, internal error %q; want one ending in %q", res.Complete, res.Internal, c.want)
			}
			t.Logf("%v: %s", time.Since(start).Round(time.Millisecond), res.Internal)
		})
	}
}

// Auto re-runs a test whose prefixes are cheap to replay, and forks one
// whose goroutines start after expensive set-up (it builds 50 MB and takes
// at least 60 ms; a fork of this test binary costs 1 to 10 ms on the
// machines here, loaded or not, and building 50 MB alone took as little as
// 5 ms): the margins are wide enough that the choice does not depend on
// the machine. A set-up that is dear
// only while it writes pages for the first time (a growing heap) is cheap
// from then on: auto re-runs it.
func TestAutoForksOnlyWhenReplayIsDear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 MB a few times")
	}
	for _, c := range []struct {
		name      string
		body      func(*xb.T)
		schedules int
		note      string
	}{
		{"Performance33", perfPlain(3, 3), 244, "checkpoint auto: re-ran the test body (package-level state unchanged after every schedule)"},
		{"setup50MB", dearSetup(50, 60*time.Millisecond), 166, "checkpoint auto: re-ran the test body until 3 schedules in a row replayed a prefix dearer than a forked child ("},
		{"dearWhileWarmingUp", warmingUp(), 166, "checkpoint auto: re-ran the test body (package-level state unchanged after every schedule)"},
	} {
		cfg := xb.DefaultConfig()
		cfg.Backer = checkpoint.NewFork(true)
		res := explore(t, c.name, c.body, cfg)
		if res.Schedules != c.schedules {
			t.Errorf("%s: %d schedules, want %d", c.name, res.Schedules, c.schedules)
		}
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, c.note) }) {
			t.Errorf("%s: notes %q, want one starting %q", c.name, res.Notes, c.note)
		}
	}
}

// dearSetup is withSetup(mb) that takes at least d before its goroutines
// start.
func dearSetup(mb float64, d time.Duration) func(*xb.T) {
	return func(t *xb.T) {
		for start := time.Now(); time.Since(start) < d; {
		}
		withSetup(mb)(t)
	}
}

// warmingUp is withSetup(0) whose first dozen executions each write 2 MB of
// fresh memory (kept, so every page is new: page faults) and take 5 ms
// before their goroutines start, far dearer than a fork; later executions
// have no set-up.
func warmingUp() func(*xb.T) {
	var kept [][]byte
	return func(t *xb.T) {
		if len(kept) < 12 {
			b := make([]byte, 2<<20)
			for i := range b {
				b[i] = byte(i)
			}
			kept = append(kept, b)
			for start := time.Now(); time.Since(start) < 5*time.Millisecond; {
			}
		}
		withSetup(0)(t)
	}
}

// A forked process that re-runs executions collects their garbage: the
// collector is off in forked processes and runs only where xbtest asks.
// Here auto hands over (the prefix is dear in the test binary only), and
// the zygote's child, which keeps no snapshot, re-runs the rest itself;
// each execution leaves 2 MB of garbage behind.
func TestForkedChildCollectsBetweenExecutions(t *testing.T) {
	runtime.GC() // what earlier tests left is no part of the fork's cost
	cfg := xb.DefaultConfig()
	cfg.Backer = checkpoint.NewFork(true).SnapshotNowhere()
	var heap0 uint64 // in a forked process: its heap when it first ran the body
	res := explore(t, "garbage", func(xt *xb.T) {
		if !checkpoint.InChild() {
			// Dearer than a fork of this test binary, which costs 2 to
			// 10 ms on the machines here, and well over 40 ms at times
			// when the machine is loaded (then auto rightly kept
			// re-running: the test failed now and then at 40 ms).
			for start := time.Now(); time.Since(start) < 250*time.Millisecond; {
			}
		}
		withSetup(0)(xt)
		// After the last branch point: no prefix pays for it.
		garbage := make([]byte, 2<<20)
		for i := 0; i < len(garbage); i += 4096 {
			garbage[i] = 1
		}
		if !checkpoint.InChild() {
			return
		}
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}} // live and not yet swept
		metrics.Read(s)
		h := s[0].Value.Uint64()
		if heap0 == 0 {
			heap0 = h
		}
		if h > heap0+64<<20 {
			xt.Errorf("the heap grew by %d MB of objects, live or garbage, in a forked process", (h-heap0)>>20)
		}
	}, cfg)
	if len(res.Findings) != 0 || res.Schedules != 166 {
		t.Errorf("%d schedules, findings %v", res.Schedules, res.Findings)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "forked after that") }) {
		t.Errorf("notes %q: auto did not hand over", res.Notes)
	}
	// The zygote and its one child, which ran every execution after the
	// hand-over.
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "; 2 processes forked, 0 branch-point snapshots") }) {
		t.Errorf("notes %q: want the zygote's one child to re-run the rest", res.Notes)
	}
}
