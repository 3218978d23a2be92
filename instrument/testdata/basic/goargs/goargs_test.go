package goargs

import (
	"reflect"
	"testing"
)

func TestGoArgs(t *testing.T) {
	want := []int{1, 2, 3, 8, 30, 45}
	if got := Run(); !reflect.DeepEqual(got, want) {
		t.Errorf("Run() = %v, want %v", got, want)
	}
}
