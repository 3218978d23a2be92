package driver

import (
	"syscall"
	"time"

	"github.com/xbtest/xbtest/internal/claims"
	"github.com/xbtest/xbtest/result"
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

// team is the driver's side of its membership.
type team struct {
	member int
	dir    string
	cpu0   time.Duration         // processCPU when it joined
	tables map[int]*claims.Table // by d.restarts; nil where it could not be opened
}

// joinTeam makes the exploration a member of cfg.Team's team, if any.
func (d *driver) joinTeam() {
	if d.cfg.Team == nil {
		return
	}
	d.team = &team{member: d.cfg.Team.Member, dir: d.cfg.Team.Dir, tables: map[int]*claims.Table{}, cpu0: processCPU()}
	d.cfg.Claim = d.claim
}

// leaveTeam unmaps the claims files.
func (d *driver) leaveTeam() {
	if d.team == nil {
		return
	}
	for _, t := range d.team.tables {
		t.Close()
	}
}

// table is the claims of generation gen, nil if it cannot be opened.
func (d *driver) table(gen int) *claims.Table {
	t, ok := d.team.tables[gen]
	if !ok {
		var err error
		if t, err = claims.Open(claims.Path(d.team.dir, d.name, gen)); err != nil {
			d.Note("-parallel: cannot share the exploration (" + err.Error() + "): the first process explores all of it")
			t = nil
		}
		d.team.tables[gen] = t
	}
	return t
}

// claim claims slot of the current tree for this member (the shard
// wrapper's Options.Claim). Without a table the lane that explores the
// test explores it all and the members that joined it nothing, which
// still adds up.
func (d *driver) claim(slot int) bool {
	t := d.table(d.restarts)
	if t == nil {
		return d.cfg.Team.Lane
	}
	return t.Claim(slot, d.team.member)
}

// teamCounted adds the schedules of an execution this member counted to
// the team's; it returns the team's total (this member's alone outside
// a team).
func (d *driver) teamCounted(n int) int {
	if d.team == nil {
		return d.stats.Schedules
	}
	t := d.table(0)
	if t == nil {
		return d.stats.Schedules
	}
	if n == 0 {
		return t.Schedules()
	}
	return t.AddSchedules(n)
}

// teamResult says in res what this member did.
func (d *driver) teamResult(res *result.Result, subtrees, left int) {
	if d.team == nil {
		return
	}
	res.ShardLearnt = d.shardLearnt
	res.Team = []result.Member{{Schedules: res.Schedules, Subtrees: subtrees, Left: left, CPU: processCPU() - d.team.cpu0, End: time.Now()}}
}

// processCPU is the processor time of this process and of the forked
// processes it has waited for.
func processCPU() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
