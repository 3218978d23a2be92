package stacks

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// leaked checks for leaks as go.uber.org/goleak does: every goroutine
// runtime.Stack shows, other than the calling one and go test's own, is
// a leak.
func leaked() []string {
	buf := make([]byte, 1<<20)
	var out []string
	for i, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if i == 0 || strings.Contains(g, "[chan receive]:\ntesting.(*T).Run(") || strings.Contains(g, "[chan receive]:\ntesting.RunTests(") {
			continue
		}
		out = append(out, g)
	}
	return out
}

func TestStackLeakCheck(t *testing.T) {
	done := make(chan struct{})
	started := make(chan struct{})
	go func() {
		close(started)
		<-done
	}()
	<-started
	if l := leaked(); len(l) != 1 || !strings.Contains(l[0], "created by example.com/basic/stacks.TestStackLeakCheck") {
		t.Errorf("want the one goroutine the test started, have:\n%s", strings.Join(l, "\n\n"))
	}
	close(done)
	// The goroutine may not have exited yet: retry as goleak does.
	for i := 0; len(leaked()) > 0; i++ {
		if i == 20 {
			t.Fatalf("leaked:\n%s", strings.Join(leaked(), "\n\n"))
		}
		time.Sleep(min(time.Microsecond<<i, 100*time.Millisecond))
	}
}

// TestNumGoroutineCounts counts goroutines as a leak check by numbers
// does: runtime.NumGoroutine is go test's count, its main goroutine and the
// test's, then the test's own, the same in every execution.
func TestNumGoroutineCounts(t *testing.T) {
	base := runtime.NumGoroutine()
	if base != 2 {
		t.Errorf("at the start: %d goroutines, want 2 (go test's main goroutine and the test's)", base)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-done
		}()
	}
	if n := runtime.NumGoroutine(); n != base+2 {
		t.Errorf("with two goroutines started: %d, want %d", n, base+2)
	}
	close(done)
	wg.Wait()
	// They may not have exited yet.
	for i := 0; runtime.NumGoroutine() != base; i++ {
		if i == 20 {
			t.Fatalf("after they ended: %d goroutines, want %d", runtime.NumGoroutine(), base)
		}
		time.Sleep(time.Millisecond)
	}
}
