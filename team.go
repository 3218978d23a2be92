package xbtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/xbtest/xbtest/internal/claims"
	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/result"
)

// teamTest is one test of a team's run: its members' reports.
type teamTest struct {
	name    string
	lane    int           // the lane that explores it (-1: none has started it)
	start   time.Time     // when its lane started it
	members int           // processes exploring it, its lane included
	joined  []int         // the members that joined it, in order
	reports map[int]*Test // by member
	orphan  *Test         // a lane's report of it without exploring it (its binary gave up first)
}

// runTeam runs the tests want of the binary as a team (see the comment at
// the top of parallel.go): lanes run them in order, each
// exploring the tests it claims first, a new lane starting while tests
// are left that no lane has started; with join, a test that has counted
// joinAfter schedules (or run for joinAfterTime) is joined by more
// members once no test is left to start, up to b.workers() processes at
// once. It calls done with each test's result in the order of want, on
// this goroutine, and reports whether the run was interrupted.
func (b *testBinary) runTeam(ctx context.Context, want []string, join bool, done func(*Test)) (bool, error) {
	dir, err := os.MkdirTemp(b.tmp, "claims-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	events := make(chan func(), 16) // run on this goroutine
	order := slices.Clone(want)
	tests := map[string]*teamTest{}
	for _, name := range want {
		tests[name] = &teamTest{name: name, lane: -1, reports: map[int]*Test{}}
	}
	var (
		reported    int                   // order[:reported] are reported
		lanes       = map[int]*teamTest{} // the lanes running, and the test each explores (nil between tests)
		lanesEnded  bool                  // a lane has run through every test: a new one would find them claimed
		unstarted   = len(want)           // tests no lane has started
		running     int                   // processes, lanes and joiners
		nextMember  int
		interrupted bool
		firstErr    error
	)
	testOf := func(name string) *teamTest {
		tt := tests[name]
		if tt == nil { // not one of want: said after them
			tt = &teamTest{name: name, lane: -1, reports: map[int]*Test{}}
			tests[name] = tt
			order = append(order, name)
		}
		return tt
	}
	started := func(m int, name string) {
		tt := testOf(name)
		if tt.lane >= 0 {
			// Two lanes explore it (a claim could not be made): the
			// first one's report stands.
			lanes[m] = nil
			return
		}
		tt.lane, tt.start, tt.members = m, time.Now(), 1
		unstarted--
		lanes[m] = tt
	}
	report := func(m int, t *Test) {
		tt := testOf(t.Name)
		if lanes[m] == tt {
			lanes[m] = nil
		}
		switch {
		case t.elsewhere:
		case tt.lane == m || slices.Contains(tt.joined, m):
			tt.reports[m] = t
		case tt.orphan == nil:
			tt.orphan = t
		}
	}
	member := func(team result.Team, tests []string, run string) {
		m := team.Member
		running++
		w := worker{shard: b.opt.Shard, run: run, tag: fmt.Sprintf("-m%d", m), team: &team}
		if team.Lane {
			lanes[m] = nil
			w.started = func(name string) { events <- func() { started(m, name) } }
		}
		go func() {
			intr, err := b.runWorker(ctx, tests, w, func(t *Test) { events <- func() { report(m, t) } })
			events <- func() {
				running--
				if _, ok := lanes[m]; ok {
					delete(lanes, m)
					lanesEnded = lanesEnded || !intr
				}
				interrupted = interrupted || intr
				if firstErr == nil {
					firstErr = err
				}
			}
		}()
	}
	newMember := func(lane bool) result.Team {
		nextMember++
		return result.Team{Member: nextMember - 1, Dir: dir, Lane: lane}
	}
	member(newMember(true), want, b.opt.Run)
	tick := time.NewTicker(resultsPoll)
	defer tick.Stop()
	for running > 0 {
		select {
		case f := <-events:
			f()
		case <-tick.C:
			if running >= b.workers() || ctx.Err() != nil {
				break
			}
			if unstarted > 0 && !lanesEnded && lanesBusy(lanes) {
				// Tests no lane has reached while every lane explores
				// one: another lane takes them, whatever their size (a
				// lane costs its start, and no part of a tree is run
				// twice).
				member(newMember(true), want, b.opt.Run)
				break
			}
			if tt := worthJoining(lanes, dir); join && tt != nil {
				levels := runpattern.Split(b.opt.Run)
				if len(levels) == 0 {
					levels = []string{""}
				}
				levels[0] = "^" + regexp.QuoteMeta(tt.name) + "$"
				team := newMember(false)
				tt.members++
				tt.joined = append(tt.joined, team.Member)
				member(team, []string{tt.name}, strings.Join(levels, "/"))
			}
		}
		for reported < len(order) {
			tt := tests[order[reported]]
			if tt.lane < 0 || len(tt.reports) < tt.members {
				break
			}
			done(b.teamResult(ctx, tt))
			reported++
		}
	}
	if firstErr != nil {
		return false, firstErr
	}
	for _, name := range order[reported:] {
		switch tt := tests[name]; {
		case tt.lane >= 0: // members that ended before they reported
			done(b.teamResult(ctx, tt))
		case tt.orphan != nil:
			done(tt.orphan)
		case !interrupted:
			done(&Test{Name: name, Problem: "not explored: the process that claimed it ended before it explored it"})
		}
	}
	return interrupted, nil
}

// lanesBusy reports whether every lane is exploring a test (not starting
// up, not between tests).
func lanesBusy(lanes map[int]*teamTest) bool {
	for _, tt := range lanes {
		if tt == nil {
			return false
		}
	}
	return true
}

// worthJoining is the test a lane explores that is big enough for more
// members (joinAfter schedules, or joinAfterTime), the one started first;
// nil if none is.
func worthJoining(lanes map[int]*teamTest, dir string) *teamTest {
	var best *teamTest
	for _, tt := range lanes {
		if tt == nil || len(tt.reports) > 0 || best != nil && !tt.start.Before(best.start) {
			continue
		}
		if time.Since(tt.start) >= joinAfterTime || claims.ReadSchedules(claims.Path(dir, tt.name, 0)) >= joinAfter {
			best = tt
		}
	}
	return best
}

// teamResult is the result of a test from its members' reports.
func (b *testBinary) teamResult(ctx context.Context, tt *teamTest) *Test {
	t := b.mergeTeam(ctx, tt)
	t.lane = tt.lane
	return t
}

// mergeTeam is teamResult's merge of the members' reports.
func (b *testBinary) mergeTeam(ctx context.Context, tt *teamTest) *Test {
	first := tt.reports[tt.lane]
	if tt.members == 1 && first != nil {
		if first.Result != nil {
			// Its lane claimed every part: its tree is the whole one.
			first.Result.Team, first.Result.ShardLearnt = nil, ""
		}
		return first
	}
	var ts []*Test
	var results []*result.Result
	var last time.Time
	for _, m := range append([]int{tt.lane}, tt.joined...) { // its lane first, the others in the order they joined
		t := tt.reports[m]
		if t == nil {
			continue
		}
		ts = append(ts, t)
		if res := t.Result; res != nil {
			for i := range res.Team {
				res.Team[i].Elapsed = res.Elapsed
				last = later(last, res.Team[i].End)
			}
			results = append(results, res)
		}
	}
	for _, res := range results {
		for i := range res.Team {
			res.Team[i].Idle = last.Sub(res.Team[i].End)
		}
	}
	if len(ts) == 0 {
		return &Test{Name: tt.name, Problem: "no member of the team reported it"}
	}
	if len(results) < tt.members {
		return partialTest(ts, tt.members, "processes")
	}
	res, err := result.MergeTeam(results)
	if err != nil {
		return &Test{Name: tt.name, Problem: "merging the team's results: " + err.Error(), Output: ts[0].Output}
	}
	if res.Bound == result.BoundShards && ctx.Err() == nil {
		if t := b.exploreAlone(ctx, tt.name); t != nil {
			return t
		}
	}
	res.Notes = append(res.Notes, teamNote(b.workers(), res.Team))
	return &Test{Name: tt.name, Result: res, Output: ts[0].Output}
}

// teamNote says how a team shared a test.
func teamNote(n int, team []result.Member) string {
	var sched, sub, cpu, idle []string
	for _, m := range team {
		sched = append(sched, fmt.Sprint(m.Schedules))
		sub = append(sub, fmt.Sprint(m.Subtrees))
		cpu = append(cpu, m.CPU.Round(time.Millisecond).String())
		idle = append(idle, m.Idle.Round(time.Millisecond).String())
	}
	return fmt.Sprintf("-parallel %d: explored by %d processes together (joined after %d schedules or %v in one); schedules each %s, parts of the tree claimed %s, CPU %s, idle at the end %s",
		n, len(team), joinAfter, joinAfterTime, strings.Join(sched, "+"), strings.Join(sub, "+"), strings.Join(cpu, "+"), strings.Join(idle, ", "))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
