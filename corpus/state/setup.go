package state

import "sync"

// Groups is a registry of named groups like groupcache's: registering a
// name twice panics. Test suites register theirs once per process, behind
// a sync.Once that every test calls (groupcache's testSetup). Under go test
// each test after the first finds the set-up done; so must every test and
// every schedule under xbtest: the Once is program state, as its groups are.
var (
	groupsMu sync.Mutex
	groups   = map[string]*Group{}
)

// Group is a named group.
type Group struct {
	Name string
	mu   sync.Mutex
	hits int
}

// NewGroup registers a group; a second group of the same name panics.
func NewGroup(name string) *Group {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	if _, dup := groups[name]; dup {
		panic("duplicate registration of group " + name)
	}
	g := &Group{Name: name}
	groups[name] = g
	return g
}

// Hit counts a use of the group.
func (g *Group) Hit() {
	g.mu.Lock()
	g.hits++
	g.mu.Unlock()
}

// Hits returns the uses so far.
func (g *Group) Hits() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hits
}
