package maps

import (
	stdmaps "maps"
	"reflect"
	"slices"
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

// TestMapsIterators: the iterators of package maps yield in the same fixed
// order as range loops (the runtime's order is random).
func TestMapsIterators(t *testing.T) {
	m := map[int]int{}
	for i := 100; i > 0; i-- {
		m[i] = -i
	}
	var want, wantV []int
	for i := 1; i <= 100; i++ {
		want, wantV = append(want, i), append(wantV, -i)
	}
	var all []int
	for k, v := range stdmaps.All(m) {
		if v != -k {
			t.Fatalf("All yields %d: %d", k, v)
		}
		all = append(all, k)
	}
	keysOf := stdmaps.Keys[map[int]int] // an explicit instantiation
	for name, got := range map[string][]int{
		"Keys":   slices.Collect(stdmaps.Keys(m)),
		"Keys[]": slices.Collect(keysOf(m)),
		"Values": slices.Collect(stdmaps.Values(m)),
		"All":    all,
	} {
		w := want
		if name == "Values" {
			w = wantV
		}
		if !slices.Equal(got, w) {
			t.Errorf("maps.%s yields %v, want %v", name, got, w)
		}
	}
}
