// Package difftest checks the ExitBlock family against the brute-force
// reference explorer (-algo brute) on small random concurrent Go programs
// (issue 18): every generated program is an ordinary Go test, rewritten and
// built as the xbtest command does, and explored under every algorithm; a
// pruned explorer may never miss an outcome of a program on which it
// reports no race.
//
// gen.go makes the programs, harness.go builds and runs them, diff.go
// compares what each algorithm reached.
//
//	go test ./difftest                     200 seeds and the regression seeds
//	XBDIFF_SEEDS=5000:300 go test -run TestDifferential ./difftest
//	go test -tags long -timeout 0 -run TestDifferentialLong ./difftest
//	                                       10,000 seeds (XBDIFF_LONG=n for n)
//	XBDIFF_SHOW=102 go test -run TestShow -v ./difftest   print a program
//
// What is compared, per program and configuration: the set of outcomes
// (the final values the test goroutine records after joining the others;
// every execution that gets there appends its outcome to a file) and the
// set of findings by kind and goroutines. An explorer may never reach an
// outcome the reference does not; unless it reports a race, it must reach
// every outcome and finding the reference does (deadlocks and leaks only
// under the -dd algorithms). A program the reference cannot explore within
// RefMaxSchedules is counted, not compared. Programs that race (on purpose,
// one in ten, or as the reference finds) are compared against the reference
// at access granularity.
package difftest

import (
	"fmt"
	"math/rand"
	"strings"
)

// Program is one generated test function.
type Program struct {
	Seed int64
	Name string // TestP<seed>
	Src  string // the function's source
	// Racy: the program accesses shared variables without synchronization
	// on purpose; the reference explores it at access granularity.
	Racy bool
	// Features names what the program uses (for reports, and for the
	// regression table's check that a seed still has what it once showed).
	Features []string
	// Ops estimates its synchronization operations (the size of the
	// brute-force tree grows with it).
	Ops int
}

func (p *Program) has(f string) bool {
	for _, g := range p.Features {
		if g == f {
			return true
		}
	}
	return false
}

// Generation bounds. The brute-force tree grows like the multinomial of the
// goroutines' operation counts, so programs stay small: a few hundred to a
// few thousand schedules each.
const (
	maxOps = 8
)

// gen is the state of one program's generation.
type gen struct {
	rnd      *rand.Rand
	p        *Program
	workers  int
	bodies   [][]string // statements of T0 (index 0) and each worker
	ops      int
	feat     map[string]bool
	chCap    int
	sends    int // channel sends minus receives planned so far
	waiters  int // goroutines that wait on the Cond
	signals  bool
	wg2      bool // a second WaitGroup: one worker waits for another
	racy     bool
	usesCond bool
}

// Generate returns the program of seed; the same seed always gives the same
// program.
func Generate(seed int64) *Program {
	g := &gen{rnd: rand.New(rand.NewSource(seed)), feat: map[string]bool{}}
	g.p = &Program{Seed: seed, Name: fmt.Sprintf("TestP%d", seed)}
	g.workers = 1 + g.rnd.Intn(3) // 2-4 goroutines with T0
	g.racy = g.rnd.Intn(10) == 0
	g.chCap = []int{0, 0, 1, 2}[g.rnd.Intn(4)]
	g.bodies = make([][]string, g.workers+1)
	// Each goroutine does one or two actions, within the budget (a go
	// statement and a Done cost a point each).
	budget := maxOps - 2*g.workers
	for i := 1; i <= g.workers; i++ {
		n := 1 + g.rnd.Intn(2)
		for j := range n {
			if j > 0 && g.ops >= budget {
				break
			}
			g.action(i)
		}
	}
	if g.rnd.Intn(3) == 0 && g.ops < budget {
		g.action(0) // T0 takes part too, between the go statements and the join
	}
	g.balance()
	g.p.Src = g.render()
	g.p.Racy = g.racy
	for f := range g.feat {
		g.p.Features = append(g.p.Features, f)
	}
	sortStrings(g.p.Features)
	g.p.Ops = g.ops + g.workers
	return g.p
}

func (g *gen) emit(i int, ops int, feat string, lines ...string) {
	g.bodies[i] = append(g.bodies[i], lines...)
	g.ops += ops
	g.feat[feat] = true
}

// action appends one random action to goroutine i (0 is T0). Goroutine i
// writes only obs[i] of the observations, and reads and writes x, y, z
// under the locks that protect them (x: mu, y: rw, z: once).
func (g *gen) action(i int) {
	id := i + 1
	o := fmt.Sprintf("obs[%d]", i)
	switch k := g.rnd.Intn(15); {
	case k == 0 && g.racy:
		g.emit(i, 0, "race", fmt.Sprintf("x = x*3 + %d // racy", id))
	case k == 1 && g.racy:
		g.emit(i, 0, "race", fmt.Sprintf("%s = %s*10 + x%%10 // racy", o, o))
	case k <= 1:
		g.emit(i, 2, "mutex", "mu.Lock()", fmt.Sprintf("x = x*3 + %d", id), "mu.Unlock()")
	case k == 2:
		g.emit(i, 2, "rwmutex", "rw.Lock()", fmt.Sprintf("y = y*3 + %d", id), "rw.Unlock()")
	case k == 3:
		if g.rnd.Intn(6) == 0 {
			// A read lock taken twice: deadlocks when a writer announces
			// itself in between (issue 18: missed before a read lock of
			// an RWMutex also write-locked ended a block).
			g.emit(i, 4, "recursive-rlock", "rw.RLock()", "rw.RLock()", fmt.Sprintf("%s = %s*10 + y%%10", o, o), "rw.RUnlock()", "rw.RUnlock()")
			return
		}
		g.emit(i, 2, "rwmutex", "rw.RLock()", fmt.Sprintf("%s = %s*10 + y%%10", o, o), "rw.RUnlock()")
	case k == 4:
		g.emit(i, 2, "trylock", "if mu.TryLock() {", fmt.Sprintf("\tx = x*3 + %d", id), "\tmu.Unlock()", "} else {", fmt.Sprintf("\t%s = %s*10 + 7", o, o), "}")
	case k == 5:
		switch g.rnd.Intn(4) {
		case 0:
			g.emit(i, 1, "atomic", fmt.Sprintf("n.Add(%d)", id))
		case 1:
			g.emit(i, 1, "atomic", fmt.Sprintf("%s = %s*10 + int(n.Load()%%10)", o, o))
		case 2:
			g.emit(i, 1, "atomic", fmt.Sprintf("if n.CompareAndSwap(0, %d) {", id), fmt.Sprintf("\t%s = %s*10 + 5", o, o), "}")
		default:
			g.emit(i, 1, "atomic", fmt.Sprintf("%s = %s*10 + int(n.Swap(%d))", o, o, id))
		}
	case k == 6:
		g.emit(i, 1, "chan", fmt.Sprintf("ch <- %d", id))
		g.sends++
	case k == 7:
		g.emit(i, 1, "chan", fmt.Sprintf("%s = %s*10 + <-ch", o, o))
		g.sends--
	case k == 8:
		lines := []string{"select {", "case v := <-ch:", fmt.Sprintf("\t%s = %s*10 + v", o, o), fmt.Sprintf("case ch <- %d:", id)}
		f := "select"
		if g.rnd.Intn(3) > 0 {
			lines = append(lines, "default:", fmt.Sprintf("\t%s = %s*10 + 9", o, o))
			f = "select-default"
		}
		g.emit(i, 1, f, append(lines, "}")...)
	case k == 9 && g.waiters < 2 && i > 0:
		// The flag makes the wait safe against a Signal that comes
		// first; a second waiter with a single Signal can be left
		// waiting (a deadlock the explorers must agree on).
		g.emit(i, 3, "cond", "mu.Lock()", "for !flag {", "\tcond.Wait()", "}", fmt.Sprintf("%s = %s*10 + x%%10", o, o), "mu.Unlock()")
		g.waiters++
		g.usesCond = true
	case k == 10:
		g.signal(i)
	case k == 11:
		g.emit(i, 3, "once", fmt.Sprintf("once.Do(func() { z = z*3 + %d })", id))
	case k == 12 && i > 0 && !g.wg2 && g.workers >= 2:
		// One worker waits for another's Done (T0 adds before the go
		// statements).
		other := 1 + (i % g.workers)
		g.wg2 = true
		g.emit(i, 3, "waitgroup", "wg2.Wait()", "mu.Lock()", fmt.Sprintf("%s = %s*10 + x%%10", o, o), "mu.Unlock()")
		g.bodies[other] = append([]string{"defer wg2.Done()"}, g.bodies[other]...)
		g.ops++
	default:
		g.emit(i, 2, "mutex", "mu.Lock()", fmt.Sprintf("x = x*3 + %d", id), "mu.Unlock()")
	}
}

// signal sets the flag and wakes the waiters: Signal or Broadcast, with the
// lock held or after releasing it (Go allows both).
func (g *gen) signal(i int) {
	call := "cond.Signal()"
	if g.rnd.Intn(2) == 0 {
		call = "cond.Broadcast()"
	}
	if g.rnd.Intn(2) == 0 {
		g.emit(i, 3, "cond-locked", "mu.Lock()", "flag = true", call, "mu.Unlock()")
	} else {
		g.emit(i, 3, "cond-unlocked", "mu.Lock()", "flag = true", "mu.Unlock()", call)
	}
	g.signals = true
	g.usesCond = true
}

// balance mostly gives every waiter a signaller and every send a receiver
// (the rest deadlock, which is an outcome too).
func (g *gen) balance() {
	if g.waiters > 0 && !g.signals && g.rnd.Intn(8) > 0 {
		// Signal from a goroutine that does not wait.
		for i := 0; i <= g.workers; i++ {
			if !strings.Contains(strings.Join(g.bodies[i], "\n"), "cond.Wait") {
				g.signal(i)
				break
			}
		}
	}
	for g.sends > 0 && g.rnd.Intn(6) > 0 {
		i := g.rnd.Intn(g.workers + 1)
		g.emit(i, 1, "chan", fmt.Sprintf("obs[%d] = obs[%d]*10 + <-ch", i, i))
		g.sends--
	}
	for g.sends < 0 && g.rnd.Intn(6) > 0 {
		i := g.rnd.Intn(g.workers + 1)
		g.emit(i, 1, "chan", fmt.Sprintf("ch <- %d", i+1))
		g.sends++
	}
}

// render writes the test function. Every variable the goroutines share is
// a local the closures capture; T0 joins them all, then records the final
// values.
func (g *gen) render() string {
	var b strings.Builder
	w := func(ind int, format string, a ...any) {
		b.WriteString(strings.Repeat("\t", ind))
		fmt.Fprintf(&b, format, a...)
		b.WriteByte('\n')
	}
	w(0, "func %s(t *testing.T) {", g.p.Name)
	w(1, "var mu sync.Mutex")
	w(1, "var rw sync.RWMutex")
	w(1, "var once sync.Once")
	w(1, "var wg, wg2 sync.WaitGroup")
	w(1, "var n atomic.Int64")
	w(1, "cond := sync.NewCond(&mu)")
	w(1, "x, y, z, flag := 0, 0, 0, false")
	w(1, "obs := make([]int, %d)", g.workers+1)
	w(1, "ch := make(chan int, %d)", g.chCap)
	if g.wg2 {
		w(1, "wg2.Add(1)")
	}
	w(1, "wg.Add(%d)", g.workers)
	for i := 1; i <= g.workers; i++ {
		w(1, "go func() {")
		w(2, "defer wg.Done()")
		for _, l := range g.bodies[i] {
			w(2, "%s", l)
		}
		w(1, "}()")
	}
	for _, l := range g.bodies[0] {
		w(1, "%s", l)
	}
	w(1, "wg.Wait()")
	w(1, "_, _, _, _, _ = &rw, &once, cond, &wg2, ch")
	w(1, "record(t, fmt.Sprint(x, y, z, n.Load(), flag, obs))")
	w(0, "}")
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// testFile is the generated package's test file: the programs and the
// helper that records each execution's outcome.
func testFile(progs []*Program) string {
	var b strings.Builder
	b.WriteString(`package gen

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// record appends the outcome of this execution to the file the harness
// names: one line per execution that reaches the end of the test body
// (xbtest runs the body once per explored schedule).
func record(t *testing.T, s string) {
	f, err := os.OpenFile(os.Getenv("XBDIFF_OUTCOMES"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s\t%s\n", t.Name(), s)
	f.Close()
}
`)
	for _, p := range progs {
		b.WriteString("\n")
		b.WriteString(p.Src)
	}
	return b.String()
}
