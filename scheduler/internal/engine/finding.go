package engine

import "github.com/xbtest/xbtest/result"

// finding is a result.Finding with what the explorer needs to come back to
// it: the path that led to it (decisions, before it is traced into
// result.Blocks) and the key that tells distinct findings apart.
type finding struct {
	result.Finding
	path []decision
	key  string
}
