package xbtest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// -parallel: a package's tests, and one test's schedule tree, explored
// by several processes.
//
// The scheduler is process-global (one controlled goroutine runs at a
// time, in one test body), so more cores need more processes. Under the
// depth-first strategy they form a team (runTeam). Lanes run the
// package's tests side by side: each runs them in order and explores
// those it claims first (package internal/claims, ClaimTest), leaving the
// others to the lanes that claimed them; a second lane starts a tenth of a
// second in while tests are left that no lane has started, and more up to
// Options.Parallel. A lane costs a process start; no test is explored
// twice. (Tests run in another process than the one before them in the
// file, as under go test -run: a test that needs an earlier one's side
// effects is wrong under go test too.)
//
// Once no test is left to start, a free process joins a big test: one
// that has counted joinAfter schedules (or run for joinAfterTime). It runs
// that test alone. The members of a test share its tree through claims
// (package scheduler/internal/shard, Options.Claim; the driver's
// team.go): every member runs the top of the tree, and each part below
// the split, each schedule of the top, is explored by the first member to
// meet it, so a member that is done with its parts takes the next ones
// the others have not reached, and none waits while another has parts
// left. Nothing is explored twice: what the lane explored before the
// others joined is claimed, and they go past it. The members' results add
// up (result.MergeTeam) to one process's counts and findings; a test
// whose members' trees differ (one learnt where blocks must end in a part
// of its own, package shard) is explored again by one process, and says
// so. Under -shard i/n as well, the team explores shard i of n: the parts
// of the other shards are left as one process leaves them. Under
// -max-schedules there are lanes but no joins: one process stops exactly
// at the bound, members counting at once could go past it together.
//
// Small trees are not shared: every member runs the top of the tree, so a
// tree of a few thousand schedules costs a second member about as much as
// it saves (on the corpus, 198 tests, most of them small, two processes per
// test took 1.7 times the CPU of one and were no faster). Lanes and
// packages run at once (-p) keep the cores busy meanwhile.
//
// Sampling (pct, random) and pb do not form teams. The samples are split:
// each test is first explored by one process for up to splitAfter
// samples, and a test not done by then is explored again, from the start,
// by Options.Parallel processes, worker w running shard w of the samples
// (runParallel; under -shard i/n, shard i+n*w of n*Parallel). pb's tree is
// not split: one process explores it.

// joinAfter is how many schedules a test counts in one process before
// others join it, joinAfterTime how long it runs whatever it counted (fork
// checkpoints, long executions). A tree done within a hundred schedules
// (milliseconds) gains nothing from a member, whose start costs tens of
// milliseconds; past that, a member that joins early shares more of the
// tree. Measured with -parallel 2 (the exploration's elapsed time, best of
// 5 to 8 runs on a shared 2-core machine): TestMarkTypeII (30,873
// schedules) 0.86 s joining after 2,000 schedules, 0.74 s after 100;
// TestBufferNotify (75,293) 1.32 s and 1.13 s; one process 1.15 s and
// 1.83 s. The corpus's counts and findings are the same either way.
//
// splitAfter is how many samples (pct, random) a test takes in one
// process before it is explored again by several, each a share.
var (
	joinAfter     = 100
	joinAfterTime = 250 * time.Millisecond
	splitAfter    = 2000
)

// workers is how many processes explore each package's tests at once.
func (b *testBinary) workers() int {
	if b.replaySpec != "" {
		return 1
	}
	return max(b.opt.Parallel, 1)
}

// parallelAfter runs the tests want of the binary in b.workers()
// processes: a team under dfs (runTeam); samples in one process for up to
// splitAfter samples each, then those it did not finish in b.workers()
// processes (runParallel). It calls done with each test's result in the
// order of want, on this goroutine, and reports whether the run was
// interrupted.
func (b *testBinary) parallelAfter(ctx context.Context, want []string, done func(*Test)) (bool, error) {
	if b.s.Strategy == settings.DFS {
		// Under -max-schedules the members of one test would count at
		// once and could go past the bound together: lanes only, each
		// test explored by one process, which stops exactly at it.
		return b.runTeam(ctx, want, b.s.MaxSchedules == 0, done)
	}
	if b.opt.Shard.Active() {
		// The workers of one shard of several machines': the first
		// process would explore another part than its shard.
		return b.runParallel(ctx, want, b.opt.Run, done)
	}
	if b.s.Strategy == settings.PB {
		// Its tree is not split (shard 0 would explore all of it).
		return b.runWorker(ctx, want, worker{run: b.opt.Run}, done)
	}
	first := worker{run: b.opt.Run, tag: "-first"}
	if m := b.s.MaxSchedules; m == 0 || m > splitAfter {
		first.maxSchedules = splitAfter
	}
	var held []*Test // the results after the first big test, in order
	var big []string
	interrupted, err := b.runWorker(ctx, want, first, func(t *Test) {
		capped := first.maxSchedules > 0 && t.Result != nil && !t.Result.Complete && t.Result.Bound == result.BoundSchedules
		if capped {
			big = append(big, t.Name)
		}
		if len(big) == 0 {
			done(t)
			return
		}
		held = append(held, t)
	})
	if err != nil {
		return false, err
	}
	merged := map[string]*Test{}
	if len(big) > 0 && !interrupted {
		levels := runpattern.Split(b.opt.Run)
		if len(levels) == 0 {
			levels = []string{""}
		}
		quoted := make([]string, len(big))
		for i, name := range big {
			quoted[i] = regexp.QuoteMeta(name)
		}
		levels[0] = "^(" + strings.Join(quoted, "|") + ")$"
		interrupted, err = b.runParallel(ctx, big, strings.Join(levels, "/"), func(t *Test) {
			if t.Result != nil {
				t.Result.Notes = append(t.Result.Notes, fmt.Sprintf("-parallel %d: not done after %d samples in one process; explored again by %d processes", b.workers(), splitAfter, b.workers()))
			}
			merged[t.Name] = t
		})
		if err != nil {
			return false, err
		}
	}
	for _, t := range held {
		if m := merged[t.Name]; m != nil {
			t = m
		} else if slices.Contains(big, t.Name) && t.Result != nil {
			// Interrupted before the workers reported it: what the
			// first process explored, no more.
			t.Result.Bound = result.BoundInterrupted
		}
		done(t)
	}
	return interrupted, nil
}

// runParallel runs the tests want (selected by run, a -run pattern) of the
// binary in b.workers() processes and calls done with each test's merged
// result, on this goroutine. It reports whether the run was interrupted.
func (b *testBinary) runParallel(ctx context.Context, want []string, run string, done func(*Test)) (bool, error) {
	n := b.workers()
	base := b.opt.Shard
	if !base.Active() {
		base = result.Shard{Count: 1, Cut: base.Cut}
	}
	type part struct{ t *Test }
	parts := make(chan part)
	interrupted := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		wk := worker{
			shard: result.Shard{Index: base.Index + base.Count*w, Count: base.Count * n, Cut: base.Cut},
			run:   run,
			tag:   fmt.Sprintf("-w%d", w),
		}
		if m := b.s.MaxSchedules; m > 0 {
			// -max-schedules bounds the test's schedules, whoever
			// explores them.
			wk.maxSchedules = max(m/n+boolInt(w < m%n), 1)
		}
		wg.Go(func() {
			interrupted[w], errs[w] = b.runWorker(ctx, want, wk, func(t *Test) { parts <- part{t} })
		})
	}
	go func() { wg.Wait(); close(parts) }()
	got := map[string][]*Test{}
	var order []string
	for pt := range parts {
		name := pt.t.Name
		if got[name] == nil {
			order = append(order, name)
		}
		got[name] = append(got[name], pt.t)
		if len(got[name]) == n {
			done(b.mergeTest(ctx, got[name], n))
			delete(got, name)
		}
	}
	for _, name := range order {
		if ts := got[name]; ts != nil {
			// Not every worker reported it (interrupted).
			done(b.mergeTest(ctx, ts, n))
		}
	}
	for w := range n {
		if errs[w] != nil {
			return false, errs[w]
		}
	}
	return slices.Contains(interrupted, true), nil
}

// mergeTest merges the workers' reports of one test (n expected).
func (b *testBinary) mergeTest(ctx context.Context, ts []*Test, n int) *Test {
	name := ts[0].Name
	var results []*result.Result
	for _, t := range ts {
		if t.Result != nil {
			results = append(results, t.Result)
		}
	}
	if len(results) == n {
		res, err := result.MergeShards(results, b.opt.Shard)
		if err != nil {
			return &Test{Name: name, Problem: "merging the workers' results: " + err.Error(), Output: ts[0].Output}
		}
		if res.Bound == result.BoundShards && ctx.Err() == nil {
			if t := b.exploreAlone(ctx, name); t != nil {
				return t
			}
		}
		return &Test{Name: name, Result: res, Output: ts[0].Output}
	}
	return partialTest(ts, n, "workers")
}

// partialTest is the result of a test that only some of the n processes
// that explored it reported (a binary ended before it reported): what
// every one had found, and the first problem.
func partialTest(ts []*Test, n int, who string) *Test {
	out := &Test{Name: ts[0].Name}
	seen := map[string]bool{}
	for _, t := range ts {
		if out.Problem == "" && t.Problem != "" {
			out.Problem, out.Bound, out.Output = t.Problem, t.Bound, t.Output
		}
		for _, f := range t.Findings() {
			if k := string(f.Kind) + "|" + f.Pos + "|" + f.Message; !seen[k] {
				seen[k] = true
				out.Found = append(out.Found, f)
			}
		}
	}
	if out.Problem == "" {
		out.Problem = fmt.Sprintf("%d of %d %s did not report it", n-len(ts), n, who)
	}
	return out
}

// exploreAlone explores one test in one process: its workers' (or team
// members') trees were not one tree.
func (b *testBinary) exploreAlone(ctx context.Context, name string) *Test {
	levels := runpattern.Split(b.opt.Run)
	if len(levels) == 0 {
		levels = []string{""}
	}
	levels[0] = "^" + regexp.QuoteMeta(name) + "$"
	var alone *Test
	b.runWorker(ctx, []string{name}, worker{shard: b.opt.Shard, run: strings.Join(levels, "/"), tag: "-alone"}, func(t *Test) { alone = t })
	if alone != nil && alone.Result != nil {
		alone.Result.Notes = append(alone.Result.Notes, fmt.Sprintf("-parallel %d: a process learnt where blocks must end (a TryLock, an RWMutex locked both ways, a racy word under tso/pso) in a part of its own, so the processes' trees differed: explored again by one process", b.workers()))
	}
	return alone
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
