package chans

import (
	"reflect"
	"sort"
	"testing"
)

func TestChanPingPong(t *testing.T) {
	if got := PingPong(3); got != 3 {
		t.Errorf("PingPong(3) = %d", got)
	}
}

func TestChanBufferedRange(t *testing.T) {
	got := Collect(Producer("a", "b", "c"))
	if !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("got %q", got)
	}
}

func TestChanSelectDefault(t *testing.T) {
	ch := make(chan int, 1)
	if !TrySend(ch, 7) || TrySend(ch, 8) {
		t.Error("TrySend")
	}
	if n, c := Levels(ch); n != 1 || c != 1 {
		t.Errorf("Levels = %d, %d", n, c)
	}
	if v, ok := TryRecv(ch); !ok || v != 7 {
		t.Errorf("TryRecv = %d, %v", v, ok)
	}
	if _, ok := TryRecv(ch); ok {
		t.Error("TryRecv on empty channel")
	}
	ones := make(chan int, 3)
	ones <- 1
	ones <- 1
	ones <- 1
	if n := Retry(ones); n != 3 {
		t.Errorf("Retry = %d", n)
	}
}

// TestChanSelectChoice wants the select to prefer a; exploring both choices
// of a select with two ready cases must find the schedule where it does not.
func TestChanSelectChoice(t *testing.T) {
	done := make(chan bool)
	go func() { done <- true }()
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 2
	which, _ := First(a, b)
	<-done
	if which != "a" {
		t.Errorf("select chose %s", which)
	}
}

func TestChanMerge(t *testing.T) {
	a, b, out := make(chan int), make(chan int), make(chan int)
	go func() {
		a <- 1
		a <- 2
		close(a)
	}()
	go func() {
		b <- 3
		close(b)
	}()
	go Merge(a, b, out)
	var got []int
	for v := range out {
		got = append(got, v)
	}
	sort.Ints(got)
	if !reflect.DeepEqual(got, []int{1, 2, 30}) {
		t.Errorf("Merge: %v", got)
	}
}

func TestChanErrs(t *testing.T) {
	errs := Errs()
	if len(errs) != 2 || errs[0] == nil || errs[1].Error() != "myErr" {
		t.Errorf("Errs: %v", errs)
	}
}

// TestChanDeadlock has two goroutines each waiting for the other.
func TestChanDeadlock(t *testing.T) {
	a, b := make(chan int), make(chan int)
	go func() {
		<-a
		b <- 1
	}()
	<-b
	a <- 1
}

func TestChanConvert(t *testing.T) {
	if s, err := Convert(); s != "yx" || err == nil {
		t.Errorf("Convert() = %q, %v", s, err)
	}
}
