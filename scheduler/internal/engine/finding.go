package engine

import "github.com/xbtest/xbtest/result"

// Finding is a result.Finding with what the driver needs to come back to
// it: the path that led to it (decisions, before it is traced into
// result.Blocks) and the key that tells distinct findings apart.
type Finding struct {
	result.Finding
	Path []decision
	Key  string
}
