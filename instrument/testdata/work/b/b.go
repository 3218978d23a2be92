// Package b is a module of the workspace that a uses.
package b

// Go runs f on a goroutine and returns a channel closed when it is done.
func Go(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}
