package scheduler

import (
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Channels and select.

// MakeChan replaces make(chan T, size).
func MakeChan[T any](size int) chan T { return engine.MakeChan[T](size) }

// Send replaces ch <- v.
func Send[T any](ch chan<- T, v T) { engine.Send(ch, v) }

// Recv replaces <-ch.
func Recv[T any](ch <-chan T) T { return engine.Recv(ch) }

// Recv2 replaces v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) { return engine.Recv2(ch) }

// Close replaces close(ch).
func Close[T any](ch chan<- T) { engine.Close(ch) }

// Len replaces len(ch).
func Len[T any](ch <-chan T) int { return engine.Len(ch) }

// LenSend replaces len(ch) for a send-only channel.
func LenSend[T any](ch chan<- T) int { return engine.LenSend(ch) }

// Case is one case of a select statement, built by SendCase or RecvCase.
type Case = engine.Case

// SendCase is the case `case ch <- v`.
func SendCase[T any](ch chan<- T, v T) Case { return engine.SendCase(ch, v) }

// RecvCase is the case `case x, ok := <-ch`; the received value is stored
// in *dst unless dst is nil.
func RecvCase[T any](ch <-chan T, dst *T) Case { return engine.RecvCase(ch, dst) }

// Select replaces a select statement: it returns the index of the case that
// proceeded (-1 for default) and, for a receive, whether a value was
// received. When several cases are ready the choice is a branch point of the
// exploration; the first schedule takes the first ready case.
func Select(hasDefault bool, cases ...Case) (int, bool) { return engine.Select(hasDefault, cases...) }
