//go:build !linux

package checkpoint

import (
	"errors"
	"time"
)

// Fork checkpoints use fork(2) as Linux provides it; elsewhere Fork falls
// back to re-running the body, and says so.

const forkSupported = false

type shared struct {
	forks, snapshots, hangs, left, copied counter
	stop, final                           flag
}

type counter struct{}

func (counter) Load() int64 { return 0 }
func (counter) Add(int64)   {}

type flag struct{}

func (flag) Load() int32                    { return 0 }
func (flag) Store(int32)                    {}
func (flag) CompareAndSwap(_, _ int32) bool { return false }

var shm *shared

func setupShared() error { return errors.New("fork checkpoints need Linux") }

// Beat is a no-op without fork support.
func Beat() {}

type child struct{ pid int }

type outcome struct{ data []byte }

func (outcome) ok() bool                          { return false }
func (outcome) String() string                    { return "could not be forked" }
func (*child) wait(time.Duration, func()) outcome { return outcome{} }

func spawn() (*child, error)                      { return nil, errors.New("fork checkpoints need Linux") }
func leave([]byte)                                { panic("checkpoint: leave without fork") }
func measureFork() (time.Duration, time.Duration) { return 0, 0 }
func hazards() []string                           { return []string{"fork checkpoints need Linux"} }
func residentPages() int64                        { return 0 }
func pageFaults() int64                           { return 0 }

func forkZygote(bool) (*child, int, error) { return nil, 0, errors.New("fork checkpoints need Linux") }
func readAll(int) []byte                   { return nil }
func writeAll(int, []byte)                 {}
func isRoot() bool                         { return true }
func gcOffForFork() func()                 { return func() {} }

// InChild is false without fork support.
func InChild() bool { return false }

// Leave is never called without fork support.
func Leave([]byte) {}

func collectIfDue() {}
