//go:build xbtag

package tags

import "sync"

// This file does not compile: rewriting or building it would fail.
var name = sync.Mutex
