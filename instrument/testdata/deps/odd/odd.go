// Package odd makes a channel of a named receive-only type, which the
// rewriter cannot instrument: it is left alone, and named.
package odd

// R is a receive-only channel type.
type R <-chan int

// Never returns a channel nothing is ever sent on.
func Never() R {
	r := make(R)
	go func() {}()
	return r
}
