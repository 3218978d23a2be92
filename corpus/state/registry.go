// Package state is a registry that keeps its state where a test cannot
// rebuild it: in package-level variables (a map of names, a counter of
// registrations) and in a journal file it appends to. Registry is the same
// code with its state in a value the test creates.
//
// Register hands out ids. Its buggy form reads the counter in one critical
// section and writes it back in another (the SplitSync bug of thesis Fig.
// 4.2), so two concurrent registrations can get the same id; RegisterFixed
// does both in one.
//
// Re-running a test body (xbtest -checkpoint=rerun) cannot restore the
// package-level state: the second schedule would find the first one's names
// registered. xbtest notices the change and refuses; fork snapshots restore
// it, so the package-level form gives exactly the findings and schedule
// counts of the value form.
//
// Expected xbtest verdicts (the same under -checkpoint auto and fork):
//   - TestGlobalRegistry, TestLocalRegistry: assertion (duplicate id).
//   - TestGlobalRegistryFixed, TestLocalRegistryFixed: none.
//   - the Global tests under -checkpoint=rerun: exploration stops after the
//     first schedule, with an error naming the variable that changed.
//   - TestSetupOnceA, TestSetupOnceB (setup.go): none; their set-up behind a
//     sync.Once registers groups once per process, as under go test (a
//     second registration would panic). Under -checkpoint=rerun the first
//     stops: the Once it completed is state the next schedule would see.
package state

import (
	"fmt"
	"os"
	"sync"
)

// The package-level state.
var (
	mu         sync.Mutex
	registry   = map[string]int{}
	registered int
	journal    *os.File
	// JournalPath is where registrations are appended.
	JournalPath = os.TempDir() + "/xbtest-corpus-state.journal"
)

// Register registers name and returns its id, splitting the counter's
// update over two critical sections (the bug).
func Register(name string) int {
	mu.Lock()
	id := registered + 1
	mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("state: " + name + " registered twice")
	}
	registered = id
	registry[name] = id
	appendJournal(name, id)
	return id
}

// RegisterFixed registers name in one critical section.
func RegisterFixed(name string) int {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("state: " + name + " registered twice")
	}
	registered++
	registry[name] = registered
	appendJournal(name, registered)
	return registered
}

// appendJournal records a registration; the file is opened on first use.
func appendJournal(name string, id int) {
	if journal == nil {
		f, err := os.OpenFile(JournalPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		journal = f
	}
	fmt.Fprintf(journal, "%d %s\n", id, name)
}

// Registry is the same registry with its state in a value.
type Registry struct {
	mu         sync.Mutex
	names      map[string]int
	registered int
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]int{}} }

// Register is the package-level Register's bug, on r.
func (r *Registry) Register(name string) int {
	r.mu.Lock()
	id := r.registered + 1
	r.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.names[name]; dup {
		panic("state: " + name + " registered twice")
	}
	r.registered = id
	r.names[name] = id
	return id
}

// RegisterFixed registers name in one critical section.
func (r *Registry) RegisterFixed(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.names[name]; dup {
		panic("state: " + name + " registered twice")
	}
	r.registered++
	r.names[name] = r.registered
	return r.registered
}
