// Package driver repeats executions of a test body until its exploration
// is over: the exploration loop, the replay and shortening of a finding's
// schedule, the hand-over of exploration state between the processes of
// fork checkpoints, and the protocol with the xbtest command.
//
// # Who calls it
//
// Package scheduler's RunTest forwards to RunTest here: it reads the
// command's settings from the environment (result.RunConfig), explores or
// replays the test, and appends result.Lines to the results file. xbtest's
// own tests explore in process with Explore and Replay under an
// engine.Config (whose test fields select the oracle and observe paths);
// the driver's own tests (minimise_test.go) check the shortening of
// schedules through export_test.go's WorstSchedule and MinimiseSchedule.
//
// # Inside
//
// explore.go is the thesis's loop: the driver is checkpoint.Target, so the
// backer (re-run or fork) calls RunFrom for each execution, which replays
// the strategy's prefix and explores from there on one engine.Execution
// (reused by every execution), then collects what the execution found and
// advances the strategy; Describe replays each finding's schedule with
// tracing, shortens it (follow.go: guided executions along a recorded
// schedule under an engine.Guide) and verifies that it replays.
// explore.go also starts the passes over the store buffers under -memory
// tso|pso. handover.go encodes what a forked child hands back; fingerprint.go
// checks that re-running starts from the same package state; strategy.go
// (newStrategy) builds the exploration strategy from the configuration:
// the only place that names one (scheduler/internal/exitblock), which the
// driver and the engine otherwise reach through sched.Strategy.
// partition.go restricts it under -shard to one part of the tree
// (scheduler/internal/shard's wrapper) and says which executions this shard
// counts; team.go is the membership of a -parallel team (its claims, the
// schedules it counts together). runtest.go is the protocol with the
// command.
//
// The driver reaches the execution only through package engine's exported
// API (engine.Execution, engine.Guide, engine.Learnt, engine.Stats,
// engine.Finding, engine.Cutter), never its workings.
package driver
