// Command xbtest is a systematic concurrency tester for Go packages.
//
// It rewrites the packages (never the user's files: the rewrite goes to a
// cache directory compiled with go test -overlay) so that every
// synchronization operation and shared-memory access calls a controlled
// scheduler, then runs each test once per meaningfully different schedule
// of its goroutines (Bruening's ExitBlock algorithms) and reports what goes
// wrong, each finding with a schedule file.
//
// Usage:
//
//	xbtest [flags] [packages]
//
// Exit status: 0 no findings, 1 findings, 2 usage, build or internal error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/xbtest/xbtest/instrument"
	"github.com/xbtest/xbtest/replay"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := newLogger(o.verbose, stderr)
	defer log.Sync()
	if o.replay != "" {
		return runReplay(ctx, o, stdout, stderr, log)
	}

	if err := checkOutDir(o.out); err != nil {
		fmt.Fprintf(stderr, "xbtest: -o %s: cannot write schedule files there: %v\n", o.out, err)
		return exitError
	}
	tmp, err := makeTemp()
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	defer os.RemoveAll(tmp)

	plan, err := instrument.Prepare(ctx, instrument.Options{
		Dir:      cwd(),
		Patterns: o.packages,
		Extra:    o.instrument,
		NoDeps:   !o.instrDeps,
		Tags:     o.tags,
		Memory:   o.memory,
		CacheDir: filepath.Join(tmp, "plan"),
		Log:      func(format string, a ...any) { log.Sugar().Debugf(format, a...) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	defer plan.Cleanup()
	printDeps(plan, stderr)

	var paths []string
	for _, p := range plan.Packages {
		paths = append(paths, p.ImportPath)
	}
	rp := &reporter{out: stdout, errOut: stderr, o: o, cwd: cwd(), stems: replay.Stems(paths)}
	progress := func(s string) { fmt.Fprintf(stderr, "xbtest: %s\n", s) }
	status := exitOK
	explored := 0
	var total tally
	defer func() { rp.total(&total) }()
	for _, p := range plan.Packages {
		if !p.HasTests {
			rp.noTests(p)
			continue
		}
		pkgStatus := exitOK
		res, err := runPackage(ctx, plan, p, o, tmp, log, progress, func(r testResult) {
			pkgStatus = max(pkgStatus, rp.testDone(p, r))
			total.add(p, r)
		})
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "xbtest: interrupted")
				return exitError
			}
			fmt.Fprintf(stderr, "xbtest: %s: %v\n", p.ImportPath, err)
			status = exitError
			continue
		}
		if res.buildErr != "" {
			rp.buildFailed(p, res.buildErr)
			status = exitError
			continue
		}
		explored += len(res.results)
		rp.pkgDone(p, res, pkgStatus)
		status = max(status, pkgStatus)
		if res.interrupted || ctx.Err() != nil {
			fmt.Fprintln(stderr, "xbtest: interrupted")
			return exitError
		}
	}
	if explored == 0 && status == exitOK {
		fmt.Fprintln(stderr, "xbtest: warning: no tests to run")
	}
	return status
}

// printDeps names the packages of other modules that start goroutines and
// that the rewrite left alone: xbtest does not control their goroutines.
func printDeps(plan *instrument.Plan, stderr io.Writer) {
	for _, d := range plan.Deps {
		if d.Goroutines && !d.Rewritten {
			fmt.Fprintf(stderr, "xbtest: not rewritten (it starts goroutines): %s (%s)\n", d.Path, d.Why)
		}
	}
}

// checkOutDir makes sure schedule files can be written to dir before any
// exploration, rather than report a file that was never written.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".xbtest-probe-")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// makeTemp makes the directory that holds everything a run writes besides
// its schedule files: the rewritten files, go's build directory (GOTMPDIR),
// results. Its name carries the pid, so that a later run can remove the
// directory of a command that was killed outright (SIGKILL), which could not
// clean up after itself.
func makeTemp() (string, error) {
	if old, _ := filepath.Glob(filepath.Join(os.TempDir(), "xbtest-run-*-*")); len(old) > 0 {
		for _, dir := range old {
			f := strings.Split(filepath.Base(dir), "-")
			if pid, err := strconv.Atoi(f[2]); err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
				os.RemoveAll(dir)
			}
		}
	}
	return os.MkdirTemp("", "xbtest-run-"+strconv.Itoa(os.Getpid())+"-")
}

// newLogger returns the -v diagnostics logger (zap), silent without -v.
func newLogger(verbose bool, w io.Writer) *zap.Logger {
	if !verbose {
		return zap.NewNop()
	}
	enc := zap.NewDevelopmentEncoderConfig()
	enc.TimeKey = ""
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(w), zapcore.DebugLevel)
	return zap.New(core)
}
