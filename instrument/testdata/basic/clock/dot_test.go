package clock

import (
	"testing"
	. "time"
)

// TestClockDotImport sleeps an hour through a dot import.
func TestClockDotImport(t *testing.T) {
	start := Now()
	Sleep(Hour)
	if got := Since(start); got != Hour {
		t.Errorf("slept %v", got)
	}
}
