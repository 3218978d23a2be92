package xbtest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/claims"
	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/result"
)

// teamTest is one test of a team's run: its members' reports.
type teamTest struct {
	name    string
	start   time.Time     // when member 0 started it
	members int           // started, member 0 included
	reports map[int]*Test // by member (numbered in the run, not the test)
}

// runTeam runs the tests want of the package's binary bin as a team (see
// the comment at the top of parallel.go): member 0 runs them in order,
// and a test that has counted joinAfter schedules (or run for
// joinAfterTime) is joined by more
// members, up to r.workers() processes at once. It calls done with each
// test's result in the order of want, on this goroutine, and reports
// whether the run was interrupted.
func (r *runner) runTeam(ctx context.Context, bin string, p instrument.Package, want []string, done func(*Test)) (bool, error) {
	dir, err := os.MkdirTemp(r.tmp, "claims-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	events := make(chan func(), 16) // run on this goroutine
	var (
		tests       []*teamTest // in the order member 0 started them; reported from the front
		cur         *teamTest   // the test member 0 explores
		running     int         // members exploring, member 0 included
		nextMember  = 1
		interrupted bool
		firstErr    error
	)
	byName := func(name string) *teamTest {
		for _, t := range slices.Backward(tests) {
			if t.name == name {
				return t
			}
		}
		return nil
	}
	report := func(m int, t *Test) {
		tt := byName(t.Name)
		if tt == nil { // reported without a start (not explored)
			tt = &teamTest{name: t.Name, members: 1, reports: map[int]*Test{}}
			tests = append(tests, tt)
		}
		tt.reports[m] = t
		if m == 0 && cur == tt {
			cur = nil
		}
	}
	member := func(m int, tests []string, run string, started func(string)) {
		running++
		w := worker{shard: r.opt.Shard, run: run, tag: fmt.Sprintf("-m%d", m), team: &result.Team{Member: m, Dir: dir}, started: started}
		go func() {
			intr, err := r.runWorker(ctx, bin, p, tests, w, func(t *Test) { events <- func() { report(m, t) } })
			events <- func() {
				running--
				interrupted = interrupted || intr
				if firstErr == nil {
					firstErr = err
				}
			}
		}()
	}
	member(0, want, r.opt.Run, func(name string) {
		events <- func() {
			cur = &teamTest{name: name, start: time.Now(), members: 1, reports: map[int]*Test{}}
			tests = append(tests, cur)
		}
	})
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for running > 0 {
		select {
		case f := <-events:
			f()
		case <-tick.C:
			// A member that is done has met every part of the tree: a
			// new one would find them all claimed.
			if cur != nil && len(cur.reports) == 0 && running < r.workers() && ctx.Err() == nil &&
				(time.Since(cur.start) >= joinAfterTime || claims.ReadSchedules(claims.Path(dir, cur.name, 0)) >= joinAfter) {
				levels := runpattern.Split(r.opt.Run)
				if len(levels) == 0 {
					levels = []string{""}
				}
				levels[0] = "^" + regexp.QuoteMeta(cur.name) + "$"
				cur.members++
				member(nextMember, []string{cur.name}, strings.Join(levels, "/"), nil)
				nextMember++
			}
		}
		for len(tests) > 0 && len(tests[0].reports) == tests[0].members {
			done(r.teamResult(ctx, bin, p, tests[0]))
			tests = tests[1:]
		}
	}
	if firstErr != nil {
		return false, firstErr
	}
	for _, tt := range tests { // members that ended before they reported
		done(r.teamResult(ctx, bin, p, tt))
	}
	return interrupted, nil
}

// teamResult is the result of a test from its members' reports.
func (r *runner) teamResult(ctx context.Context, bin string, p instrument.Package, tt *teamTest) *Test {
	first := tt.reports[0]
	if tt.members == 1 && first != nil {
		if first.Result != nil {
			// Member 0 claimed every part: its tree is the whole one.
			first.Result.Team, first.Result.ShardLearnt = nil, ""
		}
		return first
	}
	var ts []*Test
	var results []*result.Result
	var last time.Time
	for _, m := range slices.Sorted(maps.Keys(tt.reports)) { // member 0 first, the others in the order they joined
		t := tt.reports[m]
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
		if t := r.exploreAlone(ctx, bin, p, tt.name); t != nil {
			return t
		}
	}
	res.Notes = append(res.Notes, teamNote(r.workers(), res.Team))
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
