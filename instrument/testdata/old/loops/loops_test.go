package loops

import (
	"reflect"
	"sync"
	"testing"
)

func TestOldLoopVars(t *testing.T) {
	want := []int{3, 3, 3, 2, 2, 2, 2}
	if got := Closures(); !reflect.DeepEqual(got, want) {
		t.Errorf("Closures() = %v, want %v (Go 1.12 loop variables)", got, want)
	}
}

func TestOldPipeline(t *testing.T) {
	if got := Pipeline(3); got != 6 {
		t.Errorf("Pipeline(3) = %d", got)
	}
}

// TestOldSharedLoopVar starts goroutines that read the loop variable: with
// one variable for the whole loop, a schedule where both run after the loop
// sees the same value twice.
func TestOldSharedLoopVar(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			seen[i] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != 2 {
		t.Errorf("seen %v", seen)
	}
}

// TestOldRMWOrder is x op= f() whose target is evaluated once (a[k()]),
// after a call that stores y. Under -memory tso the store to y must reach
// memory before the read-modify-write of a[0] does: TSO keeps stores in
// order, so the test goroutine never sees a[0] written and y not.
func TestOldRMWOrder(t *testing.T) {
	var a [1]int
	var y int
	k := func() int { return 0 }
	set := func() int { y = 1; return 1 }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a[k()] += set()
	}()
	if a[0] == 1 && y == 0 {
		t.Errorf("a[0] is written but y is not: the stores were reordered")
	}
	wg.Wait()
}

// TestOldTuple assigns shared variables with tuple assignments, which the
// rewriter splits into temporaries stored through the non-generic
// wrappers of this go1.12 module.
func TestOldTuple(t *testing.T) {
	var a, b int
	var ok bool
	m := map[int]int{1: 2}
	pair := func() (int, int) { return 1, 2 }
	a, b = pair()
	b, ok = m[1]
	c, a := 3, b
	done := make(chan bool)
	go func() { done <- a == 2 && b == 2 && ok && c == 3 }()
	if !<-done {
		t.Errorf("a, b, ok, c = %d, %d, %v, %d; want 2, 2, true, 3", a, b, ok, c)
	}
}
