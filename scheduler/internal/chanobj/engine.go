package chanobj

import (
	"context"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// The engine's own channels: its T waits on channels for parallel subtests
// and makes T.Context on the virtual clock, through engine.Channels, which
// this package registers when it is initialised. The engine thus calls the
// very hooks rewritten code calls, with the same events, without importing
// this package.

func init() { engine.RegisterChannels(engineChannels{}) }

// engineChannels implements engine.Channels.
type engineChannels struct{}

func (engineChannels) MakeChan(size int) chan struct{} { return MakeChan[struct{}](size) }

func (engineChannels) Send(ch chan<- struct{}) { Send(ch, struct{}{}) }

func (engineChannels) Recv(ch <-chan struct{}) { Recv(ch) }

func (engineChannels) Close(ch chan<- struct{}) { Close(ch) }

func (engineChannels) WithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	return ContextWithCancel(parent)
}
