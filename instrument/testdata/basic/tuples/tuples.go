// Package tuples assigns shared variables with every form of tuple
// assignment the rewriter splits into temporaries (or, for a comma-ok with
// an ok of a named bool type, reports after the statement), so that the
// rewritten forms are compiled and their values checked.
package tuples

import "errors"

// flag is a bool type of its own (a comma-ok result converts to it).
type flag bool

type point struct{ x, y int }

func two() (int, string) { return 7, "seven" }

func three(a int) (int, int, error) { return a, a + 1, errors.New("three") }

// Forms assigns the variables, then hands them to a goroutine, which makes
// them shared, and returns what the goroutine saw.
func Forms() []any {
	var a int
	var s string
	var f float64
	var e error
	var v any
	var ok bool
	var nb flag
	var box any = 3
	p := &point{}
	arr := []int{0, 0}
	m := map[string]int{"k": 40}
	ch := make(chan int, 1)
	ch <- 5

	a, s = two()                 // a multi-value call: 7, "seven"
	f, a = 2.5, a+1              // an untyped constant and a typed value: 2.5, 8
	p.x, p.y = p.y+1, a          // no call: 1, 8
	p.x, p.y = p.y, p.x          // a swap: 8, 1
	arr[0], arr[1], _ = three(a) // a blank target: 8, 9
	m["k"], _, e = three(m["k"]) // a map target: 40, error
	v, ok = box.(int)            // comma-ok assertion: 3, true
	a, nb = box.(int)            // an ok of a named bool type: 3, true
	a, ok = <-ch                 // comma-ok receive: 5, true
	arr[1], ok = m["missing"]    // comma-ok map index: 0, false
	a, b := two()                // := with a redeclared shared variable: 7
	c, a, s := 1, 2.0, "two"     // := with an untyped constant for it: 2
	_, _ = b, c
	_ = f

	done := make(chan []any)
	go func() {
		done <- []any{a, s, f, *p, arr[0], arr[1], m["k"], e.Error(), v, ok, nb}
	}()
	return <-done
}
