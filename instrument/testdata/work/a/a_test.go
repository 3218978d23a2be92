package a

import (
	"testing"

	"example.com/b"
)

func TestWorkspace(t *testing.T) {
	n := 0
	<-b.Go(func() { n++ })
	if n != 1 {
		t.Errorf("n = %d", n)
	}
}
