package app

import (
	"testing"

	"example.com/helper"
)

// TestCount loses an update: pool's goroutines, rewritten, are controlled.
func TestCount(t *testing.T) {
	helper.Equal(t, Count(), 2)
}

func TestSum(t *testing.T) {
	helper.Equal(t, int(Sum()), 3)
}
