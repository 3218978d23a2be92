// Package helper is a test helper that takes a *testing.T: it is rewritten
// so that the tests' *testing.T (the scheduler's) is its own.
package helper

import "testing"

// Equal fails the test if got is not want.
func Equal(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
