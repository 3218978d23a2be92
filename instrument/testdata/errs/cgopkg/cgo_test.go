package cgopkg

import "testing"

func TestAnswer(t *testing.T) {
	if Answer() != 42 {
		t.Error("Answer")
	}
}
