package tuples

import (
	"reflect"
	"testing"
)

func TestTupleForms(t *testing.T) {
	want := []any{2, "two", 2.5, point{8, 1}, 8, 0, 40, "three", any(3), false, flag(true)}
	if got := Forms(); !reflect.DeepEqual(got, want) {
		t.Errorf("Forms() = %#v\nwant %#v", got, want)
	}
}
