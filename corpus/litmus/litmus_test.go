package litmus

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// model is the memory model xbtest simulates, from the settings it passes
// to the test binary.
func model() string {
	var rc struct {
		Memory string `json:"memory"`
	}
	json.Unmarshal([]byte(os.Getenv("XBTEST_CONFIG")), &rc)
	if rc.Memory == "" {
		return "sc"
	}
	return rc.Memory
}

func skipUnlessXBTest(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest -memory tso -race off ./corpus/litmus)")
	}
}

// check asserts that the outcome of test name is allowed by the model and,
// if XBTEST_LITMUS_OUT names a file, appends it there (cmd/xbtest's
// TestLitmusOutcomes collects the outcomes of every schedule).
func check(t *testing.T, name, outcome string) {
	m := model()
	if !slices.Contains(Allowed[name][m], outcome) {
		t.Errorf("%s: outcome %q is not allowed under %s", name, outcome, m)
	}
	if path := os.Getenv("XBTEST_LITMUS_OUT"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "%s|%s|%s\n", name, m, outcome)
		f.Close()
	}
}

// both runs the two threads of a test as goroutines and waits for them.
func both(a, b func()) {
	all(a, b)
}

func all(fs ...func()) {
	var wg sync.WaitGroup
	wg.Add(len(fs))
	for _, f := range fs {
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

func TestSB(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { x = 1; r0 = y }, func() { y = 1; r1 = x })
	check(t, "SB", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestSBMfences(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	var f0, f1 int32
	both(func() { x = 1; atomic.AddInt32(&f0, 1); r0 = y }, func() { y = 1; atomic.AddInt32(&f1, 1); r1 = x })
	check(t, "SB+mfences", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestSBXchgs(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y int64
	var r0, r1 int64
	both(func() { atomic.SwapInt64(&x, 1); r0 = y }, func() { atomic.SwapInt64(&y, 1); r1 = x })
	check(t, "SB+xchgs", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestSBRfiPos(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1, r2, r3 int
	both(func() { x = 1; r0 = x; r1 = y }, func() { y = 1; r2 = y; r3 = x })
	check(t, "SB+rfi-pos", fmt.Sprintf("r0=%d r1=%d r2=%d r3=%d", r0, r1, r2, r3))
}

func TestMP(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { x = 1; y = 1 }, func() { r0 = y; r1 = x })
	check(t, "MP", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestMPMfence(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	var f int32
	both(func() { x = 1; atomic.AddInt32(&f, 1); y = 1 }, func() { r0 = y; r1 = x })
	check(t, "MP+mfence", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestMPXchg(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int64
	both(func() { x = 1; atomic.SwapInt64(&y, 1) }, func() { r0 = y; r1 = x })
	check(t, "MP+xchg", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestLB(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { r0 = x; y = 1 }, func() { r1 = y; x = 1 })
	check(t, "LB", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

// In IRIW and WRC the readers' registers are their own locals, handed over
// on a channel after their last access (a fence there changes no outcome):
// as shared variables, their stores would go through the store buffers too
// and multiply the schedules (IRIW under tso: 112230 schedules instead of 16332).
func TestIRIW(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y int
	regs0, regs1 := make(chan [2]int, 1), make(chan [2]int, 1)
	all(func() { x = 1 }, func() { y = 1 },
		func() { a := x; b := y; regs0 <- [2]int{a, b} },
		func() { a := y; b := x; regs1 <- [2]int{a, b} })
	p, q := <-regs0, <-regs1
	check(t, "IRIW", fmt.Sprintf("r0=%d r1=%d r2=%d r3=%d", p[0], p[1], q[0], q[1]))
}

func TestWRC(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0 int
	regs := make(chan [2]int, 1)
	all(func() { x = 1 }, func() { r0 = x; y = 1 }, func() { a := y; b := x; regs <- [2]int{a, b} })
	r := <-regs
	check(t, "WRC", fmt.Sprintf("r0=%d r1=%d r2=%d", r0, r[0], r[1]))
}

func Test2Plus2W(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y int
	both(func() { x = 1; y = 2 }, func() { y = 1; x = 2 })
	check(t, "2+2W", fmt.Sprintf("x=%d y=%d", x, y))
}

func TestR(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0 int
	both(func() { x = 1; y = 1 }, func() { y = 2; r0 = x })
	check(t, "R", fmt.Sprintf("r0=%d y=%d", r0, y))
}

func TestS(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0 int
	both(func() { x = 2; y = 1 }, func() { r0 = y; x = 1 })
	check(t, "S", fmt.Sprintf("r0=%d x=%d", r0, x))
}

func TestN6(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { x = 1; r0 = x; r1 = y }, func() { y = 2; x = 2 })
	check(t, "n6", fmt.Sprintf("r0=%d r1=%d x=%d", r0, r1, x))
}

func TestCoRR(t *testing.T) {
	skipUnlessXBTest(t)
	var x, r0, r1 int
	both(func() { x = 1 }, func() { r0 = x; r1 = x })
	check(t, "CoRR", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

// TestRMW: x += y, whose value comes from another goroutine's store.
func TestRMW(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0 int
	both(func() { y = 1; r0 = x }, func() { x += y })
	check(t, "RMW", fmt.Sprintf("r0=%d x=%d", r0, x))
}

// The same tests with the stores written as Go's other assignment forms:
// a tuple assignment from a call (the values reach the variables after
// the call returns, left to right) and comma-ok type assertions of a
// call's result. A store is a store whatever the statement: the outcome
// sets are those of the plain tests.

// pair returns its arguments; the tuple assignments below store its
// results.
func pair(a, b int) (int, int) { return a, b }

// boxed returns v as an interface, for comma-ok assertions.
func boxed(v int) any { return v }

func TestLBCalls(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { r0 = x; y, _ = pair(1, 0) }, func() { r1 = y; x, _ = pair(1, 0) })
	check(t, "LB+calls", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestMPCall(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { x, y = pair(1, 1) }, func() { r0 = y; r1 = x })
	check(t, "MP+call", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

func TestCoRROk(t *testing.T) {
	skipUnlessXBTest(t)
	var x, r0, r1 int
	var ok bool
	both(func() { x, ok = boxed(1).(int) }, func() { r0 = x; r1 = x })
	if !ok {
		t.Error("boxed(1).(int) failed")
	}
	check(t, "CoRR+ok", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

// at returns i: a call in the target of x op= f() makes xbtest evaluate
// the target once.
func at(i int) int { return i }

// load reads *p: a shared access inside the call of x op= load(&y).
func load(p *int) int { return *p }

func TestRMWCall(t *testing.T) {
	skipUnlessXBTest(t)
	var y, r0 int
	x := make([]int, 1)
	both(func() { y = 1; r0 = x[0] }, func() { x[at(0)] += load(&y) })
	check(t, "RMW+call", fmt.Sprintf("r0=%d x=%d", r0, x[0]))
}

// flag is a bool of its own: v, ok = x.(T) with such an ok cannot go
// through temporaries (the untyped result converts to flag, a bool
// temporary would not), so xbtest reports the stores after the statement.
type flag bool

func TestCoRROkFlag(t *testing.T) {
	skipUnlessXBTest(t)
	var x, r0, r1 int
	var ok flag
	both(func() { x, ok = boxed(1).(int) }, func() { r0 = x; r1 = x })
	if !ok {
		t.Error("boxed(1).(int) failed")
	}
	check(t, "CoRR+okflag", fmt.Sprintf("r0=%d r1=%d", r0, r1))
}

// TestSBAssumingSC is SB asserting the outcomes sequential consistency
// allows, as code written for a sequentially consistent machine would:
// under -memory tso and pso xbtest reports the schedule in which both loads
// run while both stores are still in their store buffers.
func TestSBAssumingSC(t *testing.T) {
	skipUnlessXBTest(t)
	var x, y, r0, r1 int
	both(func() { x = 1; r0 = y }, func() { y = 1; r1 = x })
	if outcome := fmt.Sprintf("r0=%d r1=%d", r0, r1); !slices.Contains(Allowed["SB"]["sc"], outcome) {
		t.Errorf("SB: outcome %s is not sequentially consistent", outcome)
	}
}
