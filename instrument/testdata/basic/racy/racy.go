// Package racy has a field and a variable that race by design.
package racy

// Cell is a word lock-free code shares.
type Cell struct {
	V int //xbtest:racy the cell's word
	W int
}

// flag races by design.
//
//xbtest:racy the flag
var flag bool

// Bump writes both fields and the flag.
func Bump(c *Cell) {
	c.V++
	c.W++
	flag = true
}
