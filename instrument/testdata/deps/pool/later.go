package pool

// Results receives what Later sends.
var Results = make(chan int, 1)

// Later sends v on Results from a goroutine if it is positive. n, which an
// if statement's init declares, is the only variable shared with the
// goroutine: the rewrite does not report its allocation, and the file must
// not import unsafe for it.
func Later(v int) {
	if n := v; n > 0 {
		go func() { Results <- n }()
	}
}
