package tags

import "testing"

func TestTagsDefault(t *testing.T) {
	if Name() != "default" {
		t.Errorf("Name() = %q", Name())
	}
}
