package driver

import (
	"syscall"
	"time"

	"github.com/xbtest/xbtest/internal/claims"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// Teams (-parallel): the process is one member of several that explore
// the test's part of the tree (cfg.Shard, all of it without -shard)
// together. Each runs the top of the tree and claims the parts below the
// split, and the top's schedules and aborted attempts, as it meets them
// (package shard, Options.Claim): the first member to meet one explores
// it, the others go past. The claims are slots of a file the members
// share (package internal/claims), one file per restart (d.restarts: a
// restart, or a new pass of the store buffers, starts the tree over, the
// same in every member, since what it learnt it learnt in the top, where
// every member learns it). The first file also counts the schedules the
// members counted, which -max-schedules bounds together and the command
// reads to decide when a test is worth more members.

// team is the driver's side of its membership; nil outside a team.
type team struct {
	member int
	lane   bool // the lane that explores the test (claims all without a table)
	dir    string
	test   string
	note   func(string)          // the driver's Note
	cpu0   time.Duration         // processCPU when it joined
	tables map[int]*claims.Table // by generation (the driver's restarts); nil where it could not be opened
}

// joinTeam makes the exploration of test a member of cfg.Team's team, if
// any (nil otherwise).
func joinTeam(cfg *engine.Config, test string, note func(string)) *team {
	if cfg.Team == nil {
		return nil
	}
	return &team{member: cfg.Team.Member, lane: cfg.Team.Lane, dir: cfg.Team.Dir, test: test, note: note,
		tables: map[int]*claims.Table{}, cpu0: processCPU()}
}

// leave unmaps the claims files.
func (t *team) leave() {
	if t == nil {
		return
	}
	for _, tb := range t.tables {
		tb.Close()
	}
}

// table is the claims of generation gen, nil if it cannot be opened.
func (t *team) table(gen int) *claims.Table {
	tb, ok := t.tables[gen]
	if !ok {
		var err error
		if tb, err = claims.Open(claims.Path(t.dir, t.test, gen)); err != nil {
			t.note("-parallel: cannot share the exploration (" + err.Error() + "): the first process explores all of it")
			tb = nil
		}
		t.tables[gen] = tb
	}
	return tb
}

// claim claims slot of the tree of generation gen for this member (the
// shard wrapper's Options.Claim). Without a table the lane that explores
// the test explores it all and the members that joined it nothing, which
// still adds up.
func (t *team) claim(gen, slot int) bool {
	tb := t.table(gen)
	if tb == nil {
		return t.lane
	}
	return tb.Claim(slot, t.member)
}

// counted adds n, the schedules of an execution this member counted, to
// the team's; it returns the team's total (own, this member's, outside a
// team).
func (t *team) counted(n, own int) int {
	if t == nil {
		return own
	}
	tb := t.table(0)
	if tb == nil {
		return own
	}
	if n == 0 {
		return tb.Schedules()
	}
	return tb.AddSchedules(n)
}

// result says in res what this member did (learnt: what its own part of
// the tree taught it, the driver's shardLearnt).
func (t *team) result(res *result.Result, subtrees, left int, learnt string) {
	if t == nil {
		return
	}
	res.ShardLearnt = learnt
	res.Team = []result.Member{{Schedules: res.Schedules, Subtrees: subtrees, Left: left, CPU: processCPU() - t.cpu0, End: time.Now()}}
}

// processCPU is the processor time of this process and of the forked
// processes it has waited for.
func processCPU() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
