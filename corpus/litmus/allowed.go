// Package litmus holds the classic memory-model litmus tests as Go
// programs: goroutines doing plain int loads and stores, a full fence
// expressed through sync/atomic. Each test (litmus_test.go) asserts that its
// outcome lies in the set the memory model xbtest simulates allows
// (-memory sc|tso|pso); Allowed holds those sets.
//
// Allowed is the exact set of outcomes of each test on the abstract machine
// of each model: SC; x86-TSO (Owens, Sarkar and Sewell, "A better x86 memory
// model: x86-TSO", TPHOLs 2009, and Sewell et al., "x86-TSO: a rigorous and
// usable programmer's model for x86 multiprocessors", CACM 53(7), 2010), a
// FIFO store buffer per thread with forwarding, MFENCE and LOCK'd
// instructions waiting for an empty buffer; PSO (SPARC V9, appendix D), a
// FIFO per thread and address. scheduler/litmus_test.go recomputes every
// set by searching the states of those machines, checks it against this
// table and against the published verdict on each test's relaxed outcome
// (Intel SDM vol. 3A 8.2.3, the x86-TSO papers), and checks that xbtest
// reaches exactly these outcomes; cmd/xbtest's TestLitmusOutcomes checks
// the same for these Go programs through the whole command.
//
// Outcome notation: registers r0, r1... then the final values of the
// locations the test observes (x=, y=). Relaxed outcomes, by test:
//
//	SB          r0=0 r1=0            sc no   tso yes  pso yes  (SDM 8.2.3.4)
//	SB+mfences  r0=0 r1=0            no      no       no
//	SB+xchgs    r0=0 r1=0            no      no       no       (SDM 8.2.3.9)
//	SB+rfi-pos  r0=1 r1=0 r2=1 r3=0  no      yes      yes      (SDM 8.2.3.5)
//	MP          r0=1 r1=0            no      no       yes      (SDM 8.2.3.2)
//	MP+mfence   r0=1 r1=0            no      no       no
//	MP+xchg     r0=1 r1=0            no      no       no
//	LB          r0=1 r1=1            no      no       no       (SDM 8.2.3.3)
//	IRIW        r0=1 r1=0 r2=1 r3=0  no      no       no       (SDM 8.2.3.7)
//	WRC         r0=1 r1=1 r2=0       no      no       no       (SDM 8.2.3.6)
//	2+2W        x=1 y=1              no      no       yes
//	R           r0=0 y=2             no      yes      yes
//	S           r0=1 x=2             no      no       yes
//	n6          r0=1 r1=0 x=1        no      yes      yes      (x86-TSO paper)
//	CoRR        r0=1 r1=0            no      no       no
//	RMW         r0=1 x=0             no      no       no       (derived here)
//
// RMW is T0 y=1; r0=x || T1 x+=y: not a relaxation test but a check that
// a read-modify-write is one read and one store wherever its blocks end.
// LB+calls, MP+call, CoRR+ok, CoRR+okflag and RMW+call are LB, MP, CoRR
// and RMW with the stores written as tuple assignments from calls,
// comma-ok assertions and x[f()] += g(): the same programs for the memory
// model, with the same sets.
package litmus

// Allowed maps a test and a memory model (sc, tso, pso) to the outcomes the
// model allows, sorted.
var Allowed = map[string]map[string][]string{
	"SB": {
		"sc":  {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
	},
	"SB+mfences": {
		"sc":  {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"tso": {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"pso": {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
	},
	"SB+xchgs": {
		"sc":  {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"tso": {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
		"pso": {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
	},
	"SB+rfi-pos": {
		"sc":  {"r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
		"tso": {"r0=1 r1=0 r2=1 r3=0", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
		"pso": {"r0=1 r1=0 r2=1 r3=0", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
	},
	"MP": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
	},
	"MP+mfence": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
	},
	"MP+xchg": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
	},
	"LB": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
	},
	"IRIW": {
		"sc":  {"r0=0 r1=0 r2=0 r3=0", "r0=0 r1=0 r2=0 r3=1", "r0=0 r1=0 r2=1 r3=0", "r0=0 r1=0 r2=1 r3=1", "r0=0 r1=1 r2=0 r3=0", "r0=0 r1=1 r2=0 r3=1", "r0=0 r1=1 r2=1 r3=0", "r0=0 r1=1 r2=1 r3=1", "r0=1 r1=0 r2=0 r3=0", "r0=1 r1=0 r2=0 r3=1", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=0 r3=0", "r0=1 r1=1 r2=0 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
		"tso": {"r0=0 r1=0 r2=0 r3=0", "r0=0 r1=0 r2=0 r3=1", "r0=0 r1=0 r2=1 r3=0", "r0=0 r1=0 r2=1 r3=1", "r0=0 r1=1 r2=0 r3=0", "r0=0 r1=1 r2=0 r3=1", "r0=0 r1=1 r2=1 r3=0", "r0=0 r1=1 r2=1 r3=1", "r0=1 r1=0 r2=0 r3=0", "r0=1 r1=0 r2=0 r3=1", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=0 r3=0", "r0=1 r1=1 r2=0 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
		"pso": {"r0=0 r1=0 r2=0 r3=0", "r0=0 r1=0 r2=0 r3=1", "r0=0 r1=0 r2=1 r3=0", "r0=0 r1=0 r2=1 r3=1", "r0=0 r1=1 r2=0 r3=0", "r0=0 r1=1 r2=0 r3=1", "r0=0 r1=1 r2=1 r3=0", "r0=0 r1=1 r2=1 r3=1", "r0=1 r1=0 r2=0 r3=0", "r0=1 r1=0 r2=0 r3=1", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=0 r3=0", "r0=1 r1=1 r2=0 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
	},
	"WRC": {
		"sc":  {"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"},
		"tso": {"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"},
		"pso": {"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"},
	},
	"2+2W": {
		"sc":  {"x=1 y=2", "x=2 y=1", "x=2 y=2"},
		"tso": {"x=1 y=2", "x=2 y=1", "x=2 y=2"},
		"pso": {"x=1 y=1", "x=1 y=2", "x=2 y=1", "x=2 y=2"},
	},
	"R": {
		"sc":  {"r0=0 y=1", "r0=1 y=1", "r0=1 y=2"},
		"tso": {"r0=0 y=1", "r0=0 y=2", "r0=1 y=1", "r0=1 y=2"},
		"pso": {"r0=0 y=1", "r0=0 y=2", "r0=1 y=1", "r0=1 y=2"},
	},
	"S": {
		"sc":  {"r0=0 x=1", "r0=0 x=2", "r0=1 x=1"},
		"tso": {"r0=0 x=1", "r0=0 x=2", "r0=1 x=1"},
		"pso": {"r0=0 x=1", "r0=0 x=2", "r0=1 x=1", "r0=1 x=2"},
	},
	"n6": {
		"sc":  {"r0=1 r1=0 x=2", "r0=1 r1=2 x=1", "r0=1 r1=2 x=2", "r0=2 r1=2 x=2"},
		"tso": {"r0=1 r1=0 x=1", "r0=1 r1=0 x=2", "r0=1 r1=2 x=1", "r0=1 r1=2 x=2", "r0=2 r1=2 x=2"},
		"pso": {"r0=1 r1=0 x=1", "r0=1 r1=0 x=2", "r0=1 r1=2 x=1", "r0=1 r1=2 x=2", "r0=2 r1=0 x=2", "r0=2 r1=2 x=2"},
	},
	"LB+calls": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
	},
	"MP+call": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
	},
	"CoRR+ok": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
	},
	"CoRR+okflag": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
	},
	"RMW": {
		"sc":  {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
		"tso": {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
		"pso": {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
	},
	"RMW+call": {
		"sc":  {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
		"tso": {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
		"pso": {"r0=0 x=0", "r0=0 x=1", "r0=1 x=1"},
	},
	"CoRR": {
		"sc":  {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"tso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
		"pso": {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
	},
}
