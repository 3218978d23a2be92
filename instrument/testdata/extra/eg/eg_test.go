package eg

import "testing"

func TestErrgroupLockOrder(t *testing.T) {
	Both(new(Pair), false)
}

func TestErrgroupFixed(t *testing.T) {
	if err := Both(new(Pair), true); err != nil {
		t.Error(err)
	}
}
