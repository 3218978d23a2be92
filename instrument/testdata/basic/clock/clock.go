// Package clock uses the time package in the forms the rewriter must send
// to the virtual clock: timers embedded in structs or kept in fields,
// method values and expressions, function values, dot imports.
package clock

import (
	"os"
	"os/signal"
	"time"
)

// Deadline embeds a timer: d.Stop() is (*time.Timer).Stop promoted.
type Deadline struct {
	*time.Timer
}

// Poller embeds a ticker.
type Poller struct {
	*time.Ticker
	N int
}

// Holder keeps a timer in a field.
type Holder struct {
	T *time.Timer
}

// Stop stops h's timer through a method value.
func (h *Holder) Stop() bool {
	stop := h.T.Stop
	return stop()
}

// NotifyInterrupt hands sigc to os/signal, which sends on it unseen by the
// scheduler: the rewrite gives the channel's model up first
// (xb.SignalNotify). No test calls it.
func NotifyInterrupt(sigc chan os.Signal) { signal.Notify(sigc, os.Interrupt) }
