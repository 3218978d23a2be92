package panics

import "testing"

func TestPanicInGoroutine(t *testing.T) {
	Crash(make(chan struct{}))
}

func TestPanicRecovered(t *testing.T) {
	if msg := Recovered(); msg != "caught" {
		t.Errorf("recovered %v", msg)
	}
}
