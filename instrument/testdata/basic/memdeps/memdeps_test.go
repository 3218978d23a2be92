package memdeps

import "testing"

func TestMemGlobal(t *testing.T) {
	if n := Global(); n != 2 {
		t.Errorf("lost update: %d", n)
	}
}

func TestMemField(t *testing.T) {
	if n := Field(); n != 2 {
		t.Errorf("lost update: %d", n)
	}
}

func TestMemCaptured(t *testing.T) {
	if n := Captured(); n != 2 {
		t.Errorf("lost update: %d", n)
	}
}

func TestMemElem(t *testing.T) {
	if n := Elem(); n != 2 {
		t.Errorf("lost update: %d", n)
	}
}

func TestMemEntry(t *testing.T) {
	if n := Entry(); n != 2 {
		t.Errorf("lost update: %d", n)
	}
}
