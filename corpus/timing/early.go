package timing

import "time"

// The shapes below hang go test only when a very short timer fires while
// other goroutines could still run, which Go allows and testing/synctest's
// rule (a timer fires only when no goroutine can run) never shows. They are
// modelled on real-bug kernels of large Go projects, where a 1 ns timer or
// ticker stands for "the time-out or the tick came first"; xbtest finds
// them under -timers eager or a duration (README.md, "Virtual time").

// Await starts a goroutine that reports on results once done is closed,
// unless grace passes first. The bug: the goroutine that gives up tells
// nobody, so a caller that closes done and then waits for the report waits
// forever when the time-out won the race.
func Await(done <-chan struct{}, results chan<- int, grace time.Duration) {
	go func() {
		select {
		case <-done:
			results <- 1
		case <-time.After(grace):
		}
	}()
}

// AwaitFixed reports the time-out too.
func AwaitFixed(done <-chan struct{}, results chan<- int, grace time.Duration) {
	go func() {
		select {
		case <-done:
			results <- 1
		case <-time.After(grace):
			results <- 0
		}
	}()
}

// Reporter counts ticks and hands each count to whoever reads Reports,
// until Stop.
type Reporter struct {
	Reports chan int
	stop    chan struct{}
	done    chan struct{}
	fixed   bool
}

// StartReporter starts a Reporter ticking every interval. fixed selects
// the correct send (see loop).
func StartReporter(interval time.Duration, fixed bool) *Reporter {
	r := &Reporter{Reports: make(chan int), stop: make(chan struct{}), done: make(chan struct{}), fixed: fixed}
	go r.loop(interval)
	return r
}

// loop is the reporter's goroutine. The bug: the send of a count does not
// watch stop, so after a tick that nobody reads, Stop waits forever for a
// goroutine blocked on its send.
func (r *Reporter) loop(interval time.Duration) {
	defer close(r.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			n++
			if !r.fixed {
				r.Reports <- n
				continue
			}
			select {
			case r.Reports <- n:
			case <-r.stop:
				return
			}
		}
	}
}

// Stop stops the reporter and waits for its goroutine to end.
func (r *Reporter) Stop() {
	close(r.stop)
	<-r.done
}
