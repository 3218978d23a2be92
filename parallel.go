package xbtest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/internal/runpattern"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// -parallel: one test's schedule tree explored by several processes.
//
// The scheduler is process-global (one controlled goroutine runs at a
// time, in one test body), so more cores need more processes: the
// package's test binary runs Options.Parallel times at once, worker w
// exploring shard w of the tree of every test (package
// scheduler/internal/shard), and each test's parts are merged
// (result.MergeShards) when every worker has reported it. Under -shard
// i/n as well, worker w explores shard i+n*w of n*Parallel: the workers of
// shard i then explore exactly shard i of n, whatever their number, so
// machines that run different -parallel still add up. Counts and findings
// are those of one process; a test whose workers' trees differ (one learnt
// where blocks must end in a subtree of its own, package shard) is
// explored again by one process, and says so.
//
// Small trees are not split. Every shard runs the top of the tree (package
// shard), so a tree of a few thousand schedules costs each worker about
// as much as one process takes for all of it: on the corpus (198 tests,
// most of them small) two workers per test took 1.7 times the CPU of one
// and were no faster. So without -shard each test is first explored by one
// process for up to aloneFirst schedules, the package's tests one after
// another as without -parallel; a test that is not done by then is
// explored again, from the start, by the workers (parallelAfter). Packages
// run at once (-p) keep the cores busy meanwhile.

// aloneFirst is how many schedules one process explores of a test before
// the test is handed to the workers: what a big tree's workers then
// explore again is a small part of it (TestMarkTypeII: 30,873 schedules),
// and a tree explored within it gains little from splitting.
const aloneFirst = 2000

// workers is how many processes explore each package's tests at once.
func (r *runner) workers() int {
	if r.replaySpec != "" {
		return 1
	}
	return max(r.opt.Parallel, 1)
}

// parallelAfter runs the tests want of the package's binary bin: in one
// process for up to aloneFirst schedules each, then those it did not
// finish in r.workers() processes (runParallel). It calls done with each
// test's result in the order of want, on this goroutine, and reports
// whether the run was interrupted.
func (r *runner) parallelAfter(ctx context.Context, bin string, p instrument.Package, want []string, done func(*Test)) (bool, error) {
	if r.opt.Shard.Active() {
		// The workers of one shard of several machines': the first
		// process would explore another part than its shard.
		return r.runParallel(ctx, bin, p, want, r.opt.Run, done)
	}
	if r.s.Strategy == settings.PB {
		// Its tree is not split (shard 0 would explore all of it).
		return r.runWorker(ctx, bin, p, want, worker{run: r.opt.Run}, done)
	}
	first := worker{run: r.opt.Run, tag: "-first"}
	if m := r.s.MaxSchedules; m == 0 || m > aloneFirst {
		first.maxSchedules = aloneFirst
	}
	var held []*Test // the results after the first big test, in order
	var big []string
	interrupted, err := r.runWorker(ctx, bin, p, want, first, func(t *Test) {
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
		levels := runpattern.Split(r.opt.Run)
		if len(levels) == 0 {
			levels = []string{""}
		}
		quoted := make([]string, len(big))
		for i, name := range big {
			quoted[i] = regexp.QuoteMeta(name)
		}
		levels[0] = "^(" + strings.Join(quoted, "|") + ")$"
		interrupted, err = r.runParallel(ctx, bin, p, big, strings.Join(levels, "/"), func(t *Test) {
			if t.Result != nil {
				t.Result.Notes = append(t.Result.Notes, fmt.Sprintf("-parallel %d: not done after %d schedules in one process; explored again by %d processes", r.workers(), aloneFirst, r.workers()))
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
// package's binary bin in r.workers() processes and calls done with each
// test's merged result, on this goroutine. It reports whether the run was
// interrupted.
func (r *runner) runParallel(ctx context.Context, bin string, p instrument.Package, want []string, run string, done func(*Test)) (bool, error) {
	n := r.workers()
	base := r.opt.Shard
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
		if m := r.s.MaxSchedules; m > 0 {
			// -max-schedules bounds the test's schedules, whoever
			// explores them.
			wk.maxSchedules = max(m/n+boolInt(w < m%n), 1)
		}
		wg.Go(func() {
			interrupted[w], errs[w] = r.runWorker(ctx, bin, p, want, wk, func(t *Test) { parts <- part{t} })
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
			done(r.mergeTest(ctx, bin, p, got[name], n))
			delete(got, name)
		}
	}
	for _, name := range order {
		if ts := got[name]; ts != nil {
			// Not every worker reported it (interrupted).
			done(r.mergeTest(ctx, bin, p, ts, n))
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
func (r *runner) mergeTest(ctx context.Context, bin string, p instrument.Package, ts []*Test, n int) *Test {
	name := ts[0].Name
	var results []*result.Result
	for _, t := range ts {
		if t.Result != nil {
			results = append(results, t.Result)
		}
	}
	if len(results) == n {
		res, err := result.MergeShards(results, r.opt.Shard)
		if err != nil {
			return &Test{Name: name, Problem: "merging the workers' results: " + err.Error(), Output: ts[0].Output}
		}
		if res.Bound == result.BoundShards && ctx.Err() == nil {
			if t := r.exploreAlone(ctx, bin, p, name); t != nil {
				return t
			}
		}
		return &Test{Name: name, Result: res, Output: ts[0].Output}
	}
	// A worker's binary ended before it reported: the test is reported
	// with what every worker had found, and the first problem.
	out := &Test{Name: name}
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
		out.Problem = fmt.Sprintf("%d of %d workers did not report it", n-len(ts), n)
	}
	return out
}

// exploreAlone explores one test in one process: its workers' trees were
// not one tree.
func (r *runner) exploreAlone(ctx context.Context, bin string, p instrument.Package, name string) *Test {
	levels := runpattern.Split(r.opt.Run)
	if len(levels) == 0 {
		levels = []string{""}
	}
	levels[0] = "^" + regexp.QuoteMeta(name) + "$"
	var alone *Test
	r.runWorker(ctx, bin, p, []string{name}, worker{shard: r.opt.Shard, run: strings.Join(levels, "/"), tag: "-alone"}, func(t *Test) { alone = t })
	if alone != nil && alone.Result != nil {
		alone.Result.Notes = append(alone.Result.Notes, fmt.Sprintf("-parallel %d: a worker learnt where blocks must end (a TryLock, an RWMutex locked both ways, a racy word under tso/pso) in a subtree of its own, so the workers' trees differed: explored again by one process", r.workers()))
	}
	return alone
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
