package xt_test

import (
	"fmt"
	"sync"
	"testing"

	"example.com/basic/xt"
)

var shared int

func TestXTExternal(t *testing.T) {
	shared = 0
	var c xt.Counter
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
		t.Run(name, func(t *testing.T) {
			t.Log("sub", name)
		})
	}
	wg.Wait()
	xt.Check(t, &c, 2)
}

func ExampleCounter() {
	var c xt.Counter
	c.Inc()
	fmt.Println(c.N())
	// Output: 1
}

func FuzzCounter(f *testing.F) {
	f.Fuzz(func(t *testing.T, n int) {})
}
