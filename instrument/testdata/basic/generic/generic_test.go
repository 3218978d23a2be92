package generic

import (
	"strconv"
	"sync"
	"testing"
)

func TestGenericStack(t *testing.T) {
	var s Stack[string]
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.Push("a") }()
	go func() { defer wg.Done(); s.Push("b") }()
	wg.Wait()
	if s.Len() != 2 {
		t.Errorf("Len = %d", s.Len())
	}
}

func TestGenericMap(t *testing.T) {
	got := Map([]int{1, 2}, strconv.Itoa)
	if got[0] != "1" || got[1] != "2" {
		t.Errorf("Map = %q", got)
	}
	ch := make(chan float64, 2)
	ch <- 1.5
	ch <- 2
	close(ch)
	if Sum(ch) != 3.5 {
		t.Error("Sum")
	}
	var g Guarded[map[string]int]
	g.Lock()
	g.V = map[string]int{"x": 1}
	g.Unlock()
}
