package maps

import (
	"reflect"
	"testing"
)

func TestMapOrder(t *testing.T) {
	m := map[int]string{}
	for i := 10; i > 0; i-- {
		m[i] = "v"
	}
	got := Keys(m)
	want := []int{1, 3, 5, 7, 9, 9, -1, -1, -1, -1, -1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
}

func TestMapShared(t *testing.T) {
	idx := Index([]string{"a", "b", "a"})
	if idx["a"] != 2 || idx["b"] != 1 {
		t.Errorf("Index = %v", idx)
	}
}
