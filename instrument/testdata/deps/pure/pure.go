// Package pure only computes: it is not rewritten.
package pure

import "strings"

// Twice repeats s.
func Twice(s string) string { return strings.Repeat(s, 2) }
