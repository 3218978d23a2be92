// Package panics panics on another goroutine.
package panics

// Crash panics in a goroutine and waits for it.
func Crash(done chan struct{}) {
	go func() {
		defer close(done)
		var m map[string]int
		if len(m) == 0 {
			panic("boom") // PANIC LINE
		}
	}()
	<-done
}

// Recovered panics in a goroutine that recovers.
func Recovered() (msg any) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { msg = recover() }()
		panic("caught")
	}()
	<-done
	return msg
}
