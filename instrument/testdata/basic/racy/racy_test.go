package racy

import "testing"

func TestBump(t *testing.T) {
	var c Cell
	done := make(chan bool)
	go func() { Bump(&c); done <- true }()
	Bump(&c)
	<-done
}
