package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/xbtest/xbtest/instrument"
)

// BenchmarkCorpusRewriteBuild is the time to rewrite the thesis corpus and
// build its test binaries (go's build cache warm after the first round).
func BenchmarkCorpusRewriteBuild(b *testing.B) {
	root, _ := filepath.Abs("../..")
	for b.Loop() {
		plan, err := instrument.Prepare(context.Background(), instrument.Options{Dir: root, Patterns: []string{"./corpus/thesis/..."}})
		if err != nil {
			b.Fatal(err)
		}
		var pkgs []string
		for _, p := range plan.Packages {
			pkgs = append(pkgs, p.ImportPath)
		}
		cmd := exec.Command("go", append(append([]string{"test", "-count=1", "-run=^$"}, plan.BuildArgs...), pkgs...)...)
		cmd.Dir, cmd.Env = plan.Dir, append(os.Environ(), plan.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		plan.Cleanup()
	}
}

// sequentialTest is a single-goroutine test doing shared-memory work: what
// every access costs under xbtest when there is nothing to schedule.
const sequentialTest = `package seq

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

type cell struct {
	v    int
	next *cell
}

// Package-level, so every access is a shared access the rewriter hooks.
var (
	m map[int]int
	s []int
	c *cell
)

func TestWork(t *testing.T) {
	start := cpuSeconds()
	defer func() { os.WriteFile(os.Getenv("SEQ_TIMING"), []byte(fmt.Sprint(cpuSeconds()-start)), 0o644) }()
	m, s, c = map[int]int{}, make([]int, 1000), &cell{}
	for i := 0; i < 20000000; i++ {
		s[i%1000] += i
		c.v += s[(i*7)%1000]
		if i%16 == 0 {
			m[(i/16)%100] = c.v
		}
	}
	if len(m) != 100 {
		t.Fatal(len(m))
	}
}

// cpuSeconds is the process's CPU time: under xbtest the time package
// runs on the virtual clock, which sequential code does not advance.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
`

// BenchmarkSequentialSlowdown runs the same sequential test plainly and
// under xbtest and reports the ratio of the CPU time of the test's loop
// (20M iterations, about 0.1 s plain: long enough to be above the noise of
// a shared machine, which a 1M loop of a few milliseconds was not).
//
//	go test ./cmd/xbtest -run '^$' -bench SequentialSlowdown -benchtime 5x
func BenchmarkSequentialSlowdown(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/seq\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "seq_test.go"), []byte(sequentialTest), 0o644)
	b.Chdir(dir)
	var plain, under float64
	timing := filepath.Join(dir, "timing")
	b.Setenv("SEQ_TIMING", timing)
	seconds := func() float64 {
		var v float64
		t, _ := os.ReadFile(timing)
		fmt.Sscan(string(t), &v)
		return v
	}
	for b.Loop() {
		if out, err := exec.Command("go", "test", "-count=1", "-run=TestWork", ".").CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		plain += seconds()
		var stdout, stderr bytes.Buffer
		if s := run([]string{"-o", b.TempDir(), "./..."}, &stdout, &stderr); s != exitOK {
			b.Fatalf("xbtest: %d\n%s%s", s, stdout.String(), stderr.String())
		}
		under += seconds()
	}
	b.ReportMetric(plain/float64(b.N)*1e3, "plain-ms")
	b.ReportMetric(under/float64(b.N)*1e3, "xbtest-ms")
	b.ReportMetric(under/plain, "slowdown")
}
