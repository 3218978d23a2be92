package checkpoint

import (
	"sync/atomic"
	"testing"
	"time"
)

// A cancel that returns while the callback runs would let a timed-out
// test's stop request land on the next test (the bug this guards).
func TestCancelWaitsForRunningCallback(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	cancel := afterUnlessCancelled(time.Millisecond, func() {
		close(entered)
		<-release
		finished.Store(true)
	})
	<-entered
	returned := make(chan struct{})
	go func() { cancel(); close(returned) }()
	select {
	case <-returned:
		t.Fatal("cancel returned while the callback was still running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-returned
	if !finished.Load() {
		t.Fatal("cancel returned before the callback finished")
	}
}

func TestCancelBeforeFiringPreventsCallback(t *testing.T) {
	var ran atomic.Bool
	cancel := afterUnlessCancelled(10*time.Millisecond, func() { ran.Store(true) })
	cancel()
	cancel() // idempotent
	time.Sleep(30 * time.Millisecond)
	if ran.Load() {
		t.Fatal("callback ran after cancel")
	}
}

func TestStopAfterRequestsStop(t *testing.T) {
	ClearStop()
	defer ClearStop()
	cancel := StopAfter(time.Millisecond, StopTime)
	deadline := time.Now().Add(5 * time.Second)
	for StopRequested() == NoStop && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if got := StopRequested(); got != StopTime {
		t.Fatalf("StopRequested() = %v, want %v", got, StopTime)
	}
}
