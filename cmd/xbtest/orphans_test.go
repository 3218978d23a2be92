//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// descendants lists the processes a command started, by the marker every
// test binary it runs inherits (XBTEST_PARENT=pid): go test's test binary,
// and every process forked from it for checkpoints.
func descendants(pid int) []int {
	marker := []byte("XBTEST_PARENT=" + strconv.Itoa(pid) + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, marker) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && bytes.Contains(st, []byte(") Z ")) {
				continue // a zombie is gone, but for its parent's wait
			}
			out = append(out, p)
		}
	}
	return out
}

// TestNoOrphans stops the command while it explores with fork checkpoints
// in two processes (-parallel 2: the second joins the test after a few
// seconds; under -shard 0/2) (Ctrl-C, SIGKILL, its own -timeout) and checks that no
// process it started survives it and that its temporary files are gone
// (after SIGKILL, once the next run has started).
func TestNoOrphans(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	root := repoRoot(t)
	bin := filepath.Join(t.TempDir(), "xbtest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building xbtest: %v\n%s", err, out)
	}
	for _, how := range []string{"interrupt", "kill", "timeout"} {
		t.Run(how, func(t *testing.T) {
			tmp := t.TempDir()
			args := []string{"-algo=exitblock", "-checkpoint=fork", "-parallel=2", "-shard=0/2", "-json", "-o", filepath.Join(tmp, "out"), "./cmd/xbtest/testdata/long"}
			if how == "timeout" {
				args = append([]string{"-timeout=4s"}, args...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			pid := cmd.Process.Pid
			// Wait until the second worker's test binary has forked: the
			// binaries, their zygotes and at least one child.
			deadline := time.Now().Add(2 * time.Minute)
			for len(descendants(pid)) < 5 || !secondWorker(pid) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the command did not start forking within 2 minutes\n%s", out.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			switch how {
			case "interrupt":
				cmd.Process.Signal(os.Interrupt)
			case "kill":
				cmd.Process.Kill()
			}
			select {
			case err := <-done:
				code := cmd.ProcessState.ExitCode()
				if how == "timeout" && code != exitOK || how == "interrupt" && code != exitError {
					t.Errorf("exit status %d (%v)\n%s", code, err, out.String())
				}
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the command did not end within a minute\n%s", out.String())
			}
			deadline = time.Now().Add(10 * time.Second)
			for {
				left := descendants(pid)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					for _, p := range left {
						killProcess(p)
					}
					t.Fatalf("processes %v outlived the command", left)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if how == "kill" {
				// A process killed outright cannot remove its files; the
				// next run removes them.
				next := exec.Command(bin, "./cmd/xbtest/testdata/nothing-here")
				next.Dir = root
				next.Env = append(os.Environ(), "TMPDIR="+tmp)
				next.Run()
			}
			ents, _ := os.ReadDir(tmp)
			for _, e := range ents {
				if e.Name() != "out" {
					t.Errorf("%s left in the command's TMPDIR", e.Name())
				}
			}
		})
	}
}

// secondWorker reports whether a process of a member that joined a test
// of the command pid's -parallel team runs: a team member not a lane
// (result.Team in XBTEST_CONFIG).
func secondWorker(pid int) bool {
	for _, p := range descendants(pid) {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/environ")
		if bytes.Contains(env, []byte(`"team":{`)) && !bytes.Contains(env, []byte(`"lane":true`)) {
			return true
		}
	}
	return false
}

func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
