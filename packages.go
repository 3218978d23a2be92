package xbtest

import (
	"context"
	"runtime"
	"sync"

	"github.com/xbtest/xbtest/instrument"
)

// -p: several packages at once, as go test -p runs test binaries.
//
// Each package is built and explored on a goroutine of its own, at most
// Options.ParallelPackages at a time, and reported in the order of the
// plan, as go test prints packages: what the first unfinished package does
// reaches the observers as it happens, what the packages after it do
// waits until every package before them is done. The observers are called
// on Run's goroutine, so a caller still sees one package after another.
// Status and Progress are not held back (they describe what runs now, and
// are already called from other goroutines).

// packageJobs is how many packages are built and explored at once.
func (r *runner) packageJobs() int {
	if n := r.opt.ParallelPackages; n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// exploreAll explores the plan's packages into res, r.packageJobs() at a
// time, calling the observers in package order.
func (r *runner) exploreAll(ctx context.Context, plan *instrument.Plan, res *Results) {
	pkgs := make([]*Package, len(plan.Packages))
	all := inOrder(ctx, len(pkgs), r.packageJobs(), func(i int, send func(func())) {
		pkgs[i] = r.explorePackage(ctx, plan, plan.Packages[i], send)
	}, func(i int) bool {
		pkg := pkgs[i]
		res.Packages = append(res.Packages, pkg)
		if r.opt.PackageDone != nil {
			r.opt.PackageDone(pkg)
		}
		// As with one package at a time, the packages after an
		// interrupted one are not reported.
		return pkg.Interrupted || ctx.Err() != nil
	})
	res.Interrupted = !all
}

// explorePackage explores package p on a copy of r whose observers send
// their calls to Run's goroutine.
func (r *runner) explorePackage(ctx context.Context, plan *instrument.Plan, p instrument.Package, send func(func())) *Package {
	pr := *r
	pr.opt.Warn = func(msg string) { send(func() { r.warn(msg) }) }
	pkg := &Package{ImportPath: p.ImportPath, Dir: p.Dir, NoTests: !p.HasTests, Examples: p.Examples}
	if p.HasTests {
		pr.explore(ctx, plan, p, pkg, func(t *Test) {
			send(func() {
				pkg.Tests = append(pkg.Tests, t)
				if r.opt.TestDone != nil {
					r.opt.TestDone(pkg, t)
				}
			})
		})
	}
	return pkg
}

// inOrder runs run(i) for each i below n on a goroutine of its own, at
// most jobs at a time, starting none once ctx is done. What a run sends is
// called on inOrder's goroutine in the order of i: run i's functions as
// they come while every run before it is over, and then done(i) once it
// returns. Once done returns true, the later runs are waited for but what
// they send is not called. inOrder reports whether done was called for
// every i without stopping.
func inOrder(ctx context.Context, n, jobs int, run func(i int, send func(func())), done func(i int) (stop bool)) bool {
	type event struct {
		i  int
		fn func() // nil: run i returned
	}
	events := make(chan event)
	go func() {
		slots := make(chan struct{}, max(jobs, 1))
		var wg sync.WaitGroup
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			wg.Go(func() {
				defer func() { <-slots }()
				run(i, func(fn func()) { events <- event{i, fn} })
				events <- event{i, nil}
			})
		}
		wg.Wait()
		close(events)
	}()
	queued := make([][]func(), n)
	ended := make([]bool, n)
	front, stopped := 0, false
	for ev := range events {
		if stopped {
			continue
		}
		if ev.fn == nil {
			ended[ev.i] = true
		} else {
			queued[ev.i] = append(queued[ev.i], ev.fn)
		}
		for ; front < n && !stopped; front++ {
			for _, fn := range queued[front] {
				fn()
			}
			queued[front] = nil
			if !ended[front] {
				break
			}
			stopped = done(front)
		}
	}
	return front == n && !stopped
}
