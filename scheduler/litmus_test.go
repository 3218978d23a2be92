package scheduler_test

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	litcorpus "github.com/xbtest/xbtest/corpus/litmus"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/settings"
)

// Litmus tests of the memory models (tso.go). Each test is run twice:
// under xbtest, as goroutines calling the value-carrying hooks the rewriter
// emits under -memory tso|pso (Load, Store) and sync/atomic as the fence,
// and on a reference implementation of the abstract machines (refOutcomes:
// a direct search of the states of x86-TSO as Owens, Sarkar and Sewell
// define it, and of its per-address variant PSO). xbtest must reach
// exactly the reference's outcomes, and the reference must agree with the
// published verdict on each test's relaxed outcome.

type litOp struct {
	kind byte // 's' store, 'l' load, 'f' fence (an atomic RMW of a private word), 'x' xchg (a LOCK'd store), 'a' loc += src
	loc  int  // 0 x, 1 y, 2 z
	val  int64
	reg  int
	src  int // 'a': the location added
}

func st(loc int, v int64) litOp   { return litOp{kind: 's', loc: loc, val: v} }
func ld(loc, reg int) litOp       { return litOp{kind: 'l', loc: loc, reg: reg} }
func xchg(loc int, v int64) litOp { return litOp{kind: 'x', loc: loc, val: v} }

// add is loc += src, a plain read-modify-write: it reads src and loc and
// stores the sum (through the store buffer). The reference machine takes
// it as one step, which reaches the same outcomes as three when no other
// thread writes loc.
func add(loc, src int) litOp { return litOp{kind: 'a', loc: loc, src: src} }

var mfence = litOp{kind: 'f'}

const x, y = 0, 1

type litmus struct {
	name    string
	threads [][]litOp
	regs    int
	final   []int // locations whose final value is part of the outcome
	relaxed string
	// allowed: is the relaxed outcome allowed under sc, tso, pso. Sources:
	// Intel SDM vol. 3A 8.2.3 (examples 8-1 to 8-10), Owens, Sarkar and
	// Sewell, "A better x86 memory model: x86-TSO" (TPHOLs 2009) and
	// Sewell et al., "x86-TSO" (CACM 53(7), 2010), for TSO; SPARC V9
	// manual, appendix D (PSO: stores may be reordered with later stores to
	// other addresses, loads are not reordered, stores are multi-copy
	// atomic) for PSO; corpus-digest E.5.
	allowed [3]bool
}

var litmusTests = []litmus{
	// SB, SDM 8.2.3.4 (Example 8-3): stores may be reordered with later loads.
	{"SB", [][]litOp{{st(x, 1), ld(y, 0)}, {st(y, 1), ld(x, 1)}}, 2, nil, "r0=0 r1=0", [3]bool{false, true, true}},
	// SB with MFENCE (SDM 8.2.3.4 with fences; x86-TSO paper, SB+mfences).
	{"SB+mfences", [][]litOp{{st(x, 1), mfence, ld(y, 0)}, {st(y, 1), mfence, ld(x, 1)}}, 2, nil, "r0=0 r1=0", [3]bool{false, false, false}},
	// SDM 8.2.3.9 (Example 8-9): loads are not reordered with locked instructions.
	{"SB+xchgs", [][]litOp{{xchg(x, 1), ld(y, 0)}, {xchg(y, 1), ld(x, 1)}}, 2, nil, "r0=0 r1=0", [3]bool{false, false, false}},
	// SDM 8.2.3.5 (Example 8-5), intra-processor forwarding; SB+rfi-pos.
	{"SB+rfi-pos", [][]litOp{{st(x, 1), ld(x, 0), ld(y, 1)}, {st(y, 1), ld(y, 2), ld(x, 3)}}, 4, nil, "r0=1 r1=0 r2=1 r3=0", [3]bool{false, true, true}},
	// MP, SDM 8.2.3.2 (Example 8-1): stores are not reordered with stores (TSO); PSO reorders them.
	{"MP", [][]litOp{{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, 2, nil, "r0=1 r1=0", [3]bool{false, false, true}},
	{"MP+mfence", [][]litOp{{st(x, 1), mfence, st(y, 1)}, {ld(y, 0), ld(x, 1)}}, 2, nil, "r0=1 r1=0", [3]bool{false, false, false}},
	// corpus-digest L5 with a full-barrier CAS: the flag by a LOCK'd instruction.
	{"MP+xchg", [][]litOp{{st(x, 1), xchg(y, 1)}, {ld(y, 0), ld(x, 1)}}, 2, nil, "r0=1 r1=0", [3]bool{false, false, false}},
	// LB, SDM 8.2.3.3 (Example 8-2): loads are not reordered with later stores.
	{"LB", [][]litOp{{ld(x, 0), st(y, 1)}, {ld(y, 1), st(x, 1)}}, 2, nil, "r0=1 r1=1", [3]bool{false, false, false}},
	// IRIW, SDM 8.2.3.7 (Example 8-7): stores are seen in a consistent order.
	{"IRIW", [][]litOp{{st(x, 1)}, {st(y, 1)}, {ld(x, 0), ld(y, 1)}, {ld(y, 2), ld(x, 3)}}, 4, nil, "r0=1 r1=0 r2=1 r3=0", [3]bool{false, false, false}},
	// WRC, SDM 8.2.3.6 (Example 8-6): causality (transitive visibility).
	{"WRC", [][]litOp{{st(x, 1)}, {ld(x, 0), st(y, 1)}, {ld(y, 1), ld(x, 2)}}, 3, nil, "r0=1 r1=1 r2=0", [3]bool{false, false, false}},
	// 2+2W: the final values show both second stores committed first.
	{"2+2W", [][]litOp{{st(x, 1), st(y, 2)}, {st(y, 1), st(x, 2)}}, 0, []int{x, y}, "x=1 y=1", [3]bool{false, false, true}},
	// R: W->R reordering with a coherence witness (x86-TSO paper).
	{"R", [][]litOp{{st(x, 1), st(y, 1)}, {st(y, 2), ld(x, 0)}}, 1, []int{y}, "r0=0 y=2", [3]bool{false, true, true}},
	// S: W->W reordering witnessed by a load and a store.
	{"S", [][]litOp{{st(x, 2), st(y, 1)}, {ld(y, 0), st(x, 1)}}, 1, []int{x}, "r0=1 x=2", [3]bool{false, false, true}},
	// n6, x86-TSO paper (Fig. 3 of the TPHOLs paper): allowed by TSO, not by SC.
	{"n6", [][]litOp{{st(x, 1), ld(x, 0), ld(y, 1)}, {st(y, 2), st(x, 2)}}, 2, []int{x}, "r0=1 r1=0 x=1", [3]bool{false, true, true}},
	// RMW: a read-modify-write whose added value comes from a location
	// another thread writes (x += y); every model allows the same.
	{"RMW", [][]litOp{{st(y, 1), ld(x, 0)}, {add(x, y)}}, 1, []int{x}, "r0=1 x=0", [3]bool{false, false, false}},
	// CoRR: two reads of one location see its writes in order.
	{"CoRR", [][]litOp{{st(x, 1)}, {ld(x, 0), ld(x, 1)}}, 2, nil, "r0=1 r1=0", [3]bool{false, false, false}},
}

// statementForms maps the tests of corpus/litmus that write a classic test's
// stores with other Go assignment forms (tuple assignments from calls,
// comma-ok assertions) to the classic test: the abstract program, hence the
// allowed sets, are the same.
var statementForms = map[string]string{
	"LB+calls":    "LB",
	"MP+call":     "MP",
	"CoRR+ok":     "CoRR",
	"CoRR+okflag": "CoRR",
	"RMW+call":    "RMW",
}

var models = []settings.Memory{settings.SC, settings.TSO, settings.PSO}

func litOutcome(regs []int64, mem []int64, final []int) string {
	var parts []string
	for i, v := range regs {
		parts = append(parts, fmt.Sprintf("r%d=%d", i, v))
	}
	for _, l := range final {
		parts = append(parts, fmt.Sprintf("%c=%d", "xyz"[l], mem[l]))
	}
	return strings.Join(parts, " ")
}

// body returns the test body of lt under xbtest; out receives the outcome.
func (lt *litmus) body(out func(string)) func(*xb.T) {
	return func(t *xb.T) {
		mem := xb.New(new([3]int64))
		fences := xb.Slice(make([]int64, len(lt.threads)))
		regs := make([]int64, lt.regs)
		sp := xb.New(new(spawner))
		for i, ops := range lt.threads {
			sp.goWait(func() {
				for _, op := range ops {
					switch op.kind {
					case 's':
						xb.Store(&mem[op.loc], op.val, 0)
					case 'l':
						regs[op.reg] = xb.Load(&mem[op.loc], 0)
					case 'f':
						xb.AddInt64(&fences[i], 1)
					case 'x':
						xb.SwapInt64(&mem[op.loc], op.val)
					case 'a':
						v := xb.Load(&mem[op.src], 0)
						xb.Store(&mem[op.loc], xb.Load(&mem[op.loc], 0)+v, 0)
					}
				}
			})
		}
		sp.wg.Wait()
		final := make([]int64, 3)
		for _, l := range lt.final {
			final[l] = xb.Load(&mem[l], 0)
		}
		out(litOutcome(regs, final, lt.final))
	}
}

// refState is a state of the abstract machine.
type refState struct {
	pc   []int
	regs []int64
	mem  [3]int64
	buf  [][]litOp // per thread: buffered stores, oldest first
}

func (s *refState) clone() *refState {
	c := &refState{pc: slices.Clone(s.pc), regs: slices.Clone(s.regs), mem: s.mem}
	for _, b := range s.buf {
		c.buf = append(c.buf, slices.Clone(b))
	}
	return c
}

func (s *refState) key() string { return fmt.Sprint(s.pc, s.regs, s.mem, s.buf) }

// see is what thread i loads from loc: its newest buffered store there,
// else memory.
func (s *refState) see(i, loc int) int64 {
	v := s.mem[loc]
	for _, e := range s.buf[i] {
		if e.loc == loc {
			v = e.val
		}
	}
	return v
}

// refOutcomes enumerates the outcomes of lt on the abstract machine of m:
// under SC a store writes memory; under TSO it enters the thread's FIFO, a
// load reads the newest own buffered store to its location or memory, the
// oldest entry may be committed at any time, and MFENCE and LOCK'd
// instructions wait for an empty buffer; under PSO any location's oldest
// entry may be committed.
func refOutcomes(lt *litmus, m settings.Memory) []string {
	seen, out := map[string]bool{}, map[string]bool{}
	var visit func(s *refState)
	visit = func(s *refState) {
		k := s.key()
		if seen[k] {
			return
		}
		seen[k] = true
		done := true
		for i, ops := range lt.threads {
			if len(s.buf[i]) > 0 {
				done = false
				for j, e := range s.buf[i] {
					if m == settings.TSO && j > 0 {
						break
					}
					if first := slices.IndexFunc(s.buf[i], func(o litOp) bool { return o.loc == e.loc }); first != j {
						continue // not the oldest entry of its location
					}
					c := s.clone()
					c.mem[e.loc] = e.val
					c.buf[i] = slices.Delete(c.buf[i], j, j+1)
					visit(c)
				}
			}
			if s.pc[i] == len(ops) {
				continue
			}
			done = false
			op := ops[s.pc[i]]
			c := s.clone()
			c.pc[i]++
			switch op.kind {
			case 's':
				if m == settings.SC {
					c.mem[op.loc] = op.val
				} else {
					c.buf[i] = append(c.buf[i], op)
				}
			case 'l':
				c.regs[op.reg] = s.see(i, op.loc)
			case 'a':
				e := litOp{kind: 's', loc: op.loc, val: s.see(i, op.loc) + s.see(i, op.src)}
				if m == settings.SC {
					c.mem[op.loc] = e.val
				} else {
					c.buf[i] = append(c.buf[i], e)
				}
			case 'f':
				if len(s.buf[i]) > 0 {
					continue
				}
			case 'x':
				if len(s.buf[i]) > 0 {
					continue
				}
				c.mem[op.loc] = op.val
			}
			visit(c)
		}
		if done {
			out[litOutcome(s.regs, s.mem[:], lt.final)] = true
		}
	}
	s := &refState{pc: make([]int, len(lt.threads)), regs: make([]int64, lt.regs), buf: make([][]litOp, len(lt.threads))}
	visit(s)
	return slices.Sorted(maps.Keys(out))
}

func litConfig(base xb.Config, m settings.Memory) xb.Config {
	base.Memory = m
	base.Granularity = settings.Access
	base.Race = 0 // litmus tests race on purpose
	return base
}

// TestLitmusOutcomesAreExactlyTheModels checks, per test and model, that
// the outcomes xbtest reaches are exactly those of the abstract machine,
// under the default algorithm and under exhaustive enumeration of block
// orders, and that the machine agrees with the published verdicts.
func TestLitmusOutcomesAreExactlyTheModels(t *testing.T) {
	if len(litcorpus.Allowed) != len(litmusTests)+len(statementForms) {
		t.Errorf("corpus/litmus has %d tests, this file %d and %d statement forms", len(litcorpus.Allowed), len(litmusTests), len(statementForms))
	}
	for form, base := range statementForms {
		for _, m := range models {
			if got, want := litcorpus.Allowed[form][m.String()], litcorpus.Allowed[base][m.String()]; !slices.Equal(got, want) {
				t.Errorf("%s under %s: corpus/litmus.Allowed has %v, %s has %v", form, m, got, base, want)
			}
		}
	}
	for i := range litmusTests {
		lt := &litmusTests[i]
		t.Run(lt.name, func(t *testing.T) {
			for _, m := range models {
				want := refOutcomes(lt, m)
				if table := litcorpus.Allowed[lt.name][m.String()]; !slices.Equal(table, want) {
					t.Errorf("%s: corpus/litcorpus.Allowed has %v, the abstract machine %v", m, table, want)
				}
				if got := slices.Contains(want, lt.relaxed); got != lt.allowed[m] {
					t.Errorf("%s: the reference machine allows %q: %v, the literature: %v", m, lt.relaxed, got, lt.allowed[m])
				}
				got, res := outcomes(t, lt.name, lt.body, litConfig(xb.DefaultConfig(), m))
				if !slices.Equal(got, want) {
					t.Errorf("%s: xbtest reaches %v in %d schedules, the model allows %v", m, got, res.Schedules, want)
				}
				if len(lt.threads) > 2 {
					// Exhaustive enumeration of IRIW's and WRC's block
					// orders takes minutes (over 10^6 schedules).
					t.Logf("%s: %d outcomes, %d schedules", m, len(got), res.Schedules)
					continue
				}
				ogot, ores := outcomes(t, lt.name, lt.body, litConfig(xb.OracleConfig(true), m))
				if !slices.Equal(ogot, want) {
					t.Errorf("%s: exhaustive enumeration reaches %v in %d schedules, the model allows %v", m, ogot, ores.Schedules, want)
				}
				t.Logf("%s: %d outcomes, %d schedules (oracle %d)", m, len(got), res.Schedules, ores.Schedules)
			}
		})
	}
}

// BenchmarkLitmus explores each litmus test under each memory model with
// the default algorithm (sc at access granularity): the time per complete
// exploration and its schedule count.
func BenchmarkLitmus(b *testing.B) {
	for i := range litmusTests {
		lt := &litmusTests[i]
		for _, m := range models {
			b.Run(lt.name+"/"+m.String(), func(b *testing.B) {
				body := lt.body(func(string) {})
				cfg := litConfig(xb.DefaultConfig(), m)
				var schedules int
				for b.Loop() {
					schedules = xb.Explore(lt.name, body, cfg).Schedules
				}
				b.ReportMetric(float64(schedules), "schedules")
			})
		}
	}
}

// BenchmarkMemoryHookBuffered is the cost of a buffered store and a load
// forwarded from it under TSO, with a second goroutine alive and no other
// goroutine enabled (the loads are block boundaries nobody else can use).
func BenchmarkMemoryHookBuffered(b *testing.B) {
	cfg := xb.DefaultConfig()
	cfg.Memory, cfg.Race = settings.TSO, 0
	cfg.MaxSteps, cfg.MaxSchedules = 0, 1
	x := xb.New(new(int))
	n := b.N
	b.ResetTimer()
	xb.Explore("hooks", func(t *xb.T) {
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Recv(done) })
		for i := range n {
			xb.Store(x, i, 0)
			hookSink += xb.Load(x, 0)
			if i&63 == 63 {
				xb.Fence()
			}
		}
		xb.Send(done, true)
	}, cfg)
}

// TestBufferedPointersStayAlive stores the only pointer to an object into a
// store buffer and collects garbage: the buffer keeps the value as a typed
// entry, so the collector sees the pointer and the object survives until the
// store commits.
func TestBufferedPointersStayAlive(t *testing.T) {
	type obj struct{ v [64]int }
	var freed atomic.Bool
	var inMemory *obj
	got := 0
	cfg := xb.DefaultConfig()
	cfg.Memory, cfg.Race, cfg.MaxSchedules = settings.TSO, 0, 1
	res := xb.Explore("gc", func(*xb.T) {
		slot := xb.New(new(*obj))
		done := xb.MakeChan[bool](0)
		xb.Go(func() { xb.Recv(done) }) // a second goroutine: stores are buffered
		func() {
			o := &obj{}
			o.v[0] = 42
			runtime.SetFinalizer(o, func(*obj) { freed.Store(true) })
			xb.Store(slot, o, 0)
		}()
		for range 3 {
			runtime.GC()
			time.Sleep(time.Millisecond) // let finalizers run
		}
		inMemory = *slot // not yet committed
		got = xb.Load(slot, 0).v[0]
		xb.Send(done, true)
	}, cfg)
	if res.Internal != "" {
		t.Fatal(res.Internal)
	}
	if inMemory != nil || got != 42 || freed.Load() {
		t.Errorf("memory held %p before the flush, the goroutine loaded %d, object freed: %v; want nil, 42, false", inMemory, got, freed.Load())
	}
}

// TestSynchronizationDrains checks that every synchronization operation of
// a goroutine drains its store buffers (x86's LOCK'd instructions and
// MFENCE): MP under PSO, where the writer's two stores go to different
// FIFOs and may commit out of order, with the operation between them.
// The reader then never sees the second store without the first. Without
// an operation, or with a loop's back edge (Step, no fence), it does.
func TestSynchronizationDrains(t *testing.T) {
	type prims struct {
		mu   xb.Mutex
		rw   xb.RWMutex
		cond *xb.Cond
		ch   chan int
		wg   xb.WaitGroup
		once xb.Once
		m    xb.Map
		w32  int32
		w64  int64
		ptr  unsafe.Pointer
	}
	type op struct {
		name           string
		pre, mid, post func(p *prims)
	}
	nop := func(*prims) {}
	ops := []op{
		{"Mutex.Lock", nop, func(p *prims) { p.mu.Lock() }, func(p *prims) { p.mu.Unlock() }},
		{"Mutex.Unlock", func(p *prims) { p.mu.Lock() }, func(p *prims) { p.mu.Unlock() }, nop},
		{"Mutex.TryLock", nop, func(p *prims) { p.mu.TryLock() }, func(p *prims) { p.mu.Unlock() }},
		{"RWMutex.RLock", nop, func(p *prims) { p.rw.RLock() }, func(p *prims) { p.rw.RUnlock() }},
		{"RWMutex.RUnlock", func(p *prims) { p.rw.RLock() }, func(p *prims) { p.rw.RUnlock() }, nop},
		{"RWMutex.Lock", nop, func(p *prims) { p.rw.Lock() }, func(p *prims) { p.rw.Unlock() }},
		{"RWMutex.Unlock", func(p *prims) { p.rw.Lock() }, func(p *prims) { p.rw.Unlock() }, nop},
		{"Cond.Signal", nop, func(p *prims) { p.cond.Signal() }, nop},
		{"Cond.Broadcast", nop, func(p *prims) { p.cond.Broadcast() }, nop},
		{"send", nop, func(p *prims) { xb.Send(p.ch, 1) }, nop},
		{"receive", func(p *prims) { xb.Send(p.ch, 1) }, func(p *prims) { xb.Recv(p.ch) }, nop},
		{"close", nop, func(p *prims) { xb.Close(p.ch) }, nop},
		{"select", nop, func(p *prims) { xb.Select(true, xb.SendCase(p.ch, 1)) }, nop},
		{"WaitGroup.Add", nop, func(p *prims) { p.wg.Add(1) }, func(p *prims) { p.wg.Done() }},
		{"WaitGroup.Done", func(p *prims) { p.wg.Add(1) }, func(p *prims) { p.wg.Done() }, nop},
		{"WaitGroup.Wait", nop, func(p *prims) { p.wg.Wait() }, nop},
		{"Once.Do", nop, func(p *prims) { p.once.Do(func() {}) }, nop},
		{"Map.Load", nop, func(p *prims) { p.m.Load(1) }, nop},
		{"Map.Store", nop, func(p *prims) { p.m.Store(1, 1) }, nop},
		{"atomic.LoadInt32", nop, func(p *prims) { xb.LoadInt32(&p.w32) }, nop},
		{"atomic.StoreInt32", nop, func(p *prims) { xb.StoreInt32(&p.w32, 1) }, nop},
		{"atomic.AddInt64", nop, func(p *prims) { xb.AddInt64(&p.w64, 1) }, nop},
		{"atomic.CompareAndSwapInt64", nop, func(p *prims) { xb.CompareAndSwapInt64(&p.w64, 0, 1) }, nop},
		{"atomic.SwapInt64", nop, func(p *prims) { xb.SwapInt64(&p.w64, 1) }, nop},
		{"atomic.OrInt32", nop, func(p *prims) { xb.OrInt32(&p.w32, 1) }, nop},
		{"atomic.LoadPointer", nop, func(p *prims) { xb.LoadPointer(&p.ptr) }, nop},
		{"go", nop, func(p *prims) { xb.Go(func() {}) }, nop},
		{"Fence", nop, func(*prims) { xb.Fence() }, nop},
	}
	const relaxed = "r0=1 r1=0"
	reached := func(t *testing.T, mid func(*prims), pre, post func(*prims)) []string {
		seen := map[string]bool{}
		cfg := litConfig(xb.DefaultConfig(), settings.PSO)
		res := xb.Explore(t.Name(), func(*xb.T) {
			p := xb.New(new(prims))
			p.cond = xb.NewCond(&p.mu)
			p.ch = xb.MakeChan[int](1)
			mem := xb.New(new([2]int64))
			var r0, r1 int64
			sp := xb.New(new(spawner))
			sp.goWait(func() {
				pre(p)
				xb.Store(&mem[0], 1, 0)
				mid(p)
				xb.Store(&mem[1], 1, 0)
				post(p)
			})
			sp.goWait(func() {
				r0 = xb.Load(&mem[1], 0)
				r1 = xb.Load(&mem[0], 0)
			})
			sp.wg.Wait()
			seen[fmt.Sprintf("r0=%d r1=%d", r0, r1)] = true
		}, cfg)
		if res.Internal != "" || len(res.Findings) != 0 || !res.Complete {
			t.Fatalf("internal %q, findings %v, complete %v", res.Internal, res.Findings, res.Complete)
		}
		return slices.Sorted(maps.Keys(seen))
	}
	for _, c := range []struct {
		name string
		mid  func(*prims)
	}{{"nothing", nop}, {"Step", func(*prims) { xb.Step() }}} {
		if got := reached(t, c.mid, nop, nop); !slices.Contains(got, relaxed) {
			t.Errorf("with %s between the stores: outcomes %v, want %s among them", c.name, got, relaxed)
		}
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			got := reached(t, o.mid, o.pre, o.post)
			if slices.Contains(got, relaxed) || len(got) != 3 {
				t.Errorf("outcomes %v: want the three of MP+mfence, not %s", got, relaxed)
			}
		})
	}
}
