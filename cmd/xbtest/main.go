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
//	xbtest merge [-json] FILE|DIR...   (the -json output of -shard i/n runs)
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
	"syscall"

	"github.com/xbtest/xbtest"
	"github.com/xbtest/xbtest/internal/shardenv"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr) // merge.go
	}
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
	if err := shardenv.TouchStatus(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}

	rp := &reporter{out: stdout, errOut: stderr, o: o, cwd: cwd()}
	var total tally
	status, pkgStatus, explored := exitOK, exitOK, 0
	opt := o.apiOptions(log)
	prog := newProgress(stderr, o.json)
	defer prog.close()
	opt.Status = prog.update
	opt.Warn = func(msg string) { prog.quiet(func() { fmt.Fprintf(stderr, "xbtest: %s\n", msg) }) }
	var report *runReport
	if o.html != "" {
		report = newRunReport(o)
	}
	opt.TestDone = func(p *xbtest.Package, t *xbtest.Test) {
		prog.testDone(p.ImportPath, t.Name)
		pkgStatus = max(pkgStatus, rp.testDone(p, t))
		total.add(p, t)
		report.test(p, t)
	}
	opt.PackageDone = func(p *xbtest.Package) {
		prog.pkgDone(p.ImportPath)
		report.pkg(p)
		switch {
		case p.NoTests:
			rp.noTests(p)
		case p.Err != nil:
			if !p.Interrupted {
				fmt.Fprintf(stderr, "xbtest: %s: %v\n", p.ImportPath, p.Err)
				status = exitError
			}
		case p.BuildError != "":
			rp.buildFailed(p.ImportPath, p.BuildError)
			status = exitError
		default:
			explored += len(p.Tests)
			rp.pkgDone(p, pkgStatus)
			status = max(status, pkgStatus)
		}
		pkgStatus = exitOK
	}
	res, err := xbtest.Run(ctx, opt)
	prog.close()
	if err != nil {
		fmt.Fprintf(stderr, "xbtest: %v\n", err)
		return exitError
	}
	if res.Interrupted {
		fmt.Fprintln(stderr, "xbtest: interrupted")
		rp.total(&total)
		status = exitError
	} else {
		rp.total(&total)
	}
	if report != nil {
		if err := report.write(&total); err != nil {
			fmt.Fprintf(stderr, "xbtest: writing the run report: %v\n", err)
			status = exitError
		}
	}
	if res.Interrupted {
		return exitError
	}
	if explored == 0 && status == exitOK {
		fmt.Fprintln(stderr, "xbtest: warning: no tests to run")
	}
	return status
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
