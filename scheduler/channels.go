package scheduler

import (
	"os"
	"os/signal"

	"github.com/xbtest/xbtest/scheduler/internal/chanobj"
)

// Channels and select.

// MakeChan replaces make(chan T, size).
func MakeChan[T any](size int) chan T { return chanobj.MakeChan[T](size) }

// Send replaces ch <- v.
func Send[T any](ch chan<- T, v T) { chanobj.Send(ch, v) }

// Recv replaces <-ch.
func Recv[T any](ch <-chan T) T { return chanobj.Recv(ch) }

// Recv2 replaces v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) { return chanobj.Recv2(ch) }

// Close replaces close(ch).
func Close[T any](ch chan<- T) { chanobj.Close(ch) }

// Len replaces len(ch).
func Len[T any](ch <-chan T) int { return chanobj.Len(ch) }

// LenSend replaces len(ch) for a send-only channel.
func LenSend[T any](ch chan<- T) int { return chanobj.LenSend(ch) }

// Case is one case of a select statement, built by SendCase or RecvCase.
type Case = chanobj.Case

// SendCase is the case `case ch <- v`.
func SendCase[T any](ch chan<- T, v T) Case { return chanobj.SendCase(ch, v) }

// RecvCase is the case `case x, ok := <-ch`; the received value is stored
// in *dst unless dst is nil.
func RecvCase[T any](ch <-chan T, dst *T) Case { return chanobj.RecvCase(ch, dst) }

// Select replaces a select statement: it returns the index of the case that
// proceeded (-1 for default) and, for a receive, whether a value was
// received. When several cases are ready the choice is a branch point of the
// exploration; the first schedule takes the first ready case.
func Select(hasDefault bool, cases ...Case) (int, bool) { return chanobj.Select(hasDefault, cases...) }

// SignalNotify replaces signal.Notify: the runtime sends the signals on c
// without the scheduler seeing it, so c is left without a model
// (chanobj.HandOut) before it is handed over.
func SignalNotify(c chan<- os.Signal, sig ...os.Signal) {
	chanobj.HandOut(c)
	signal.Notify(c, sig...)
}
