// Package chans uses channels in every way.
package chans

// PingPong bounces a ball n times between two goroutines over unbuffered
// channels and returns how often it was hit.
func PingPong(n int) int {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	hits := 0
	for i := 0; i < n; i++ {
		ping <- hits
		hits = <-pong
	}
	close(ping)
	if _, ok := <-pong; ok {
		return -1
	}
	return hits
}

// Chan is a named channel type.
type Chan chan string

// Producer sends words on a buffered channel of a named type and closes it.
func Producer(words ...string) Chan {
	ch := make(Chan, 2)
	go func() {
		defer close(ch)
		for _, w := range words {
			ch <- w
		}
	}()
	return ch
}

// Collect receives until the channel is closed.
func Collect(ch <-chan string) []string {
	var out []string
	for w := range ch {
		out = append(out, w)
	}
	return out
}

// TrySend sends without blocking.
func TrySend(ch chan<- int, v int) bool {
	select {
	case ch <- v:
		return true
	default:
		return false
	}
}

// TryRecv receives without blocking.
func TryRecv(ch <-chan int) (v int, ok bool) {
	select {
	case v = <-ch:
		ok = true
	default:
	}
	return
}

// First returns which of two channels a select takes, and its value.
func First(a, b <-chan int) (string, int) {
	select {
	case v := <-a:
		return "a", v
	case v, ok := <-b:
		if !ok {
			return "closed", 0
		}
		return "b", v
	}
}

// Merge forwards a and b to out until both are closed, using nil channels
// to disable finished cases, a labeled loop, break and continue.
func Merge(a, b <-chan int, out chan<- int) {
	defer close(out)
loop:
	for {
		if a == nil && b == nil {
			break loop
		}
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue loop
			}
			out <- v
		case v, ok := <-b:
			if !ok {
				b = nil
				break
			}
			out <- v * 10
		}
	}
}

// Errs sends a concrete error on a channel of interfaces, in a select and
// in a plain send.
func Errs() []error {
	ch := make(chan error, 2)
	var e *myErr
	select {
	case ch <- e:
	}
	ch <- &myErr{"x"}
	close(ch)
	var out []error
	for err := range ch {
		out = append(out, err)
	}
	return out
}

type myErr struct{ s string }

func (e *myErr) Error() string { return "myErr" }

// Levels reports len and cap of a send-only channel.
func Levels(ch chan<- int) (int, int) { return len(ch), cap(ch) }

// Bytes is a named slice type.
type Bytes []byte

var lastErr error

// Convert sends and assigns values of other types than the channel's
// element or the variable: a named type into its underlying type, a
// concrete type into an interface.
func Convert() (string, error) {
	ch := make(chan []byte, 1)
	ch <- Bytes("x")
	var b []byte
	b = Bytes("y")
	lastErr = &myErr{"z"}
	done := make(chan bool)
	go func() {
		b = append(b, <-ch...)
		done <- true
	}()
	<-done
	return string(b), lastErr
}

// Retry receives with a select until it has 3, jumping back with goto.
func Retry(ch chan int) int {
	n := 0
again:
	select {
	case v := <-ch:
		n += v
		if n < 3 {
			goto again
		}
	}
	return n
}
