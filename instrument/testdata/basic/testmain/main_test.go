package testmain

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	Ready = true
	os.Exit(m.Run())
}

func TestTestMainRan(t *testing.T) {
	if !Ready {
		t.Error("TestMain did not run")
	}
}
