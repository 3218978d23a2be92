package engine

import "github.com/xbtest/xbtest/result"

// Finding is a result.Finding with what the driver needs to come back to
// it: the path that led to it (decisions, before it is traced into
// result.Blocks) and the key that tells distinct findings apart.
type Finding struct {
	result.Finding
	Path []decision
	Key  string
	// AfterGC: a race seen after the garbage collector ran in its
	// execution (see gcCycles). The collector may have freed an object and
	// given its address to another, whose accesses race detection, which
	// knows addresses, would pair with the first one's.
	AfterGC bool
}
