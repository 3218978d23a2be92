package engine

import (
	"sort"
	"sync"

	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
)

// Goroutines started outside any execution: a go statement of rewritten
// code that runs when no test is being explored, typically during package
// initialisation (a package-level pool that starts a ticker or a purge
// loop in init). Go runs them concurrently with every test; xbtest cannot
// make them part of an execution (they started once, before any of them),
// nor let them run natively while one is under way: the hooks they call
// would act on the native objects while the execution's goroutines act on
// the scheduler's model of the same objects (a Mutex held twice), and
// their steps would make executions unrepeatable.
//
// So they are held: when one calls a hook while an execution is under way,
// it waits until the test's exploration ends, and then goes on natively.
// Holding a goroutine is a behaviour Go allows (its scheduler promises no
// goroutine a time slice), so whatever the executions show remains a Go
// behaviour; what they do not show is the test's goroutines interleaved
// with the held ones. The test's result says so (result.BoundOutside) and
// names where the held goroutines were started and where they waited.
//
// A held goroutine is seen only at a hook: between two hooks, and at memory
// hooks while the execution has one goroutine (hooks then do nothing, see
// Read), it runs unseen.
var outside struct {
	mu    sync.Mutex
	sites map[uintptr]string // goroutine (getg) -> where its go statement is
	// gate is closed to let held goroutines go on; nil when none waits.
	gate chan struct{}
	// held: the goroutines held now, by where they were started: where
	// the first of them was held.
	held map[string]string
}

// goOutside starts f on a goroutine outside any execution, remembering
// where the go statement is so that a hold can name it.
func goOutside(f func()) {
	site := srcpos.Caller(2)
	go func() {
		g := getg()
		outside.mu.Lock()
		if outside.sites == nil {
			outside.sites = map[uintptr]string{}
		}
		outside.sites[g] = site
		outside.mu.Unlock()
		defer func() {
			outside.mu.Lock()
			delete(outside.sites, g)
			outside.mu.Unlock()
		}()
		f()
	}()
}

// holdOutside holds the calling goroutine if it was started outside any
// execution (goOutside), until ReleaseOutside; it reports whether it was
// one. The caller then behaves as outside any execution.
func holdOutside() bool {
	g := getg()
	outside.mu.Lock()
	site, ok := outside.sites[g]
	if !ok {
		outside.mu.Unlock()
		return false
	}
	if outside.gate == nil {
		outside.gate = make(chan struct{})
	}
	if outside.held == nil {
		outside.held = map[string]string{}
	}
	if _, ok := outside.held[site]; !ok {
		outside.held[site] = srcpos.Caller(3)
	}
	gate := outside.gate
	outside.mu.Unlock()
	<-gate
	return true
}

// Held is a goroutine started outside any execution and held by one.
type Held struct {
	Started string // file:line of its go statement
	At      string // file:line of the hook where it was held
}

// HeldOutside returns the goroutines held now, by where they were started
// (one for each such place). They stay held until ReleaseOutside: every
// execution from the one that first held them on runs without them.
func HeldOutside() []Held {
	outside.mu.Lock()
	defer outside.mu.Unlock()
	var h []Held
	for started, at := range outside.held {
		h = append(h, Held{started, at})
	}
	sort.Slice(h, func(i, j int) bool { return h[i].Started < h[j].Started })
	return h
}

// ReleaseOutside lets the held goroutines go on, natively; the driver
// calls it when a test's exploration is over.
func ReleaseOutside() {
	outside.mu.Lock()
	defer outside.mu.Unlock()
	if outside.gate != nil {
		close(outside.gate)
		outside.gate = nil
	}
	clear(outside.held)
}
