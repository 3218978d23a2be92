package app

import (
	"testing"

	"example.com/dep"
)

func TestVendorPlain(t *testing.T) {
	if Sum(1, 2) != 3 {
		t.Error("Sum")
	}
}

// TestVendorBoth needs the vendored package rewritten (by default, or with
// -instrument).
func TestVendorBoth(t *testing.T) {
	var p Pair
	dep.Both(p.AB, p.BA)
}
