//go:build linux

package checkpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Processes.
//
// Go has no fork: the runtime's other threads (sysmon, idle Ms) do not
// exist in the child, and a thread that held a runtime lock at the moment of
// the fork would leave it held forever. The process is therefore forked only
// when it is quiescent: GOMAXPROCS=1 (no other thread runs Go code) and every
// controlled goroutine parked by the scheduler, from the one goroutine that
// runs. The runtime's fork hooks (those syscall.ForkExec uses) block signals
// across the fork. In the child nothing preempts a goroutine (sysmon is
// gone), which is harmless under the scheduler: one controlled goroutine runs
// at a time and the others wait for it.
//
// Each child gets a pipe to its parent (the exploration state it hands back)
// and ends when its parent is gone (it looks at every heartbeat and while
// it waits), so that killing the test binary, or the xbtest command that
// watches it, ends the whole tree. A page
// of shared memory carries a heartbeat and the pid of the process that is
// running, so that a waiting ancestor can tell a child that hangs (its
// runtime wedged: no heartbeat, no CPU time) from one that works.

//go:linkname beforeFork syscall.runtime_BeforeFork
func beforeFork()

//go:linkname afterFork syscall.runtime_AfterFork
func afterFork()

// self describes this process's place in the tree.
var self = struct {
	up    int // write end of the pipe to the parent; -1 in the root
	level int // 0 in the root
	ppid  int // the parent's pid
	beats int
}{up: -1}

// orphaned ends a child whose parent is gone. (A death signal,
// PR_SET_PDEATHSIG, would fire when the parent's forking thread ends, not
// its process, and the Go runtime may end threads; so children look.)
func orphaned() {
	if self.level > 0 && syscall.Getppid() != self.ppid {
		syscall.Exit(3)
	}
}

// shared is a page of memory shared by the whole process tree.
type shared struct {
	beat      atomic.Uint64 // bumped by whichever process runs
	running   atomic.Int64  // pid of the process that runs
	forks     atomic.Int64  // children forked (all processes)
	snapshots atomic.Int64  // branch-point snapshots taken
	hangs     atomic.Int64  // children killed by the watchdog
	retries   atomic.Int64  // children forked again after a stall
}

var shm *shared

// setupShared maps the shared page (once, in the root, before any fork).
func setupShared() error {
	if shm != nil {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, os.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		return fmt.Errorf("checkpoint: shared memory: %v", err)
	}
	shm = (*shared)(unsafe.Pointer(&b[0]))
	return nil
}

// Beat tells waiting ancestors that this process makes progress. The
// scheduler calls it every few hundred scheduling events.
func Beat() {
	if s := shm; s != nil {
		s.beat.Add(1)
		if self.beats++; self.beats&63 == 0 {
			orphaned()
		}
	}
}

func rawFork() (int, error) {
	beforeFork()
	pid, _, errno := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	afterFork()
	if errno != 0 {
		return 0, errno
	}
	return int(pid), nil
}

// child is a forked process as its parent sees it.
type child struct {
	pid int
	rd  int // read end of its pipe
}

// spawn forks. In the parent it returns the child; in the child it returns
// nil, having set up the child's side (pipe, death signal).
func spawn() (*child, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("checkpoint: pipe: %v", err)
	}
	ppid := syscall.Getpid()
	pid, err := rawFork()
	if err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, fmt.Errorf("checkpoint: fork: %v", err)
	}
	if pid == 0 {
		syscall.Close(p[0])
		if self.up >= 0 {
			syscall.Close(self.up)
		}
		self.up, self.level, self.ppid = p[1], self.level+1, ppid
		orphaned()
		shm.forks.Add(1)
		shm.running.Store(int64(syscall.Getpid()))
		return nil, nil
	}
	syscall.Close(p[1])
	return &child{pid: pid, rd: p[0]}, nil
}

// InChild reports whether this process is a forked child (a zygote, a
// snapshot or an execution's process), which must never return into the
// test binary's own code: it ends with Leave.
func InChild() bool { return self.level > 0 }

// Leave hands state to the parent and ends this forked child.
func Leave(state []byte) { leave(state) }

// isRoot reports whether this process is the test binary itself.
func isRoot() bool { return self.level == 0 }

// spawnWaiting forks a child that is to wait for its parent's word: in the
// parent it returns the child and the write end of a pipe to it, in the
// child nil and the read end.
func spawnWaiting() (*child, int, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, 0, fmt.Errorf("checkpoint: pipe: %v", err)
	}
	c, err := spawn()
	switch {
	case err != nil:
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, 0, err
	case c == nil:
		syscall.Close(p[1])
		return nil, p[0], nil
	}
	syscall.Close(p[0])
	return c, p[1], nil
}

// readAll reads fd to its end.
func readAll(fd int) []byte {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			syscall.Close(fd)
			return out
		}
		out = append(out, buf[:n]...)
	}
}

// leave hands state to the parent and ends the process.
func leave(state []byte) {
	writeAll(self.up, state)
	syscall.Exit(0)
}

func writeAll(fd int, b []byte) {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			syscall.Exit(4)
		}
		b = b[n:]
	}
}

// outcome is how a child ended.
type outcome struct {
	data   []byte
	status syscall.WaitStatus
	hung   bool
}

func (o outcome) String() string {
	switch {
	case o.hung:
		return "made no progress and was killed"
	case o.status.Signaled():
		return "was killed (" + o.status.Signal().String() + ")"

	default:
		return "exited with status " + strconv.Itoa(o.status.ExitStatus())
	}
}

// exitWedged is the status of a child that gave up on an execution its
// watchdog found stuck, for its parent to fork it again.
const exitWedged = 75

// Wedged is called when the watchdog finds the running execution stuck: a
// goroutine that never reaches a scheduling point. In a forked child on its
// first attempt the process exits, and its parent forks the same start
// again: a child has only the thread that forked it, and the Go runtime
// does not expect to lose the others, so a rare child can stall where a
// second one does not. (The parent has the same state as before the first
// attempt; what the child did is done again.) A stall that happens again is
// the program's and is reported.
func Wedged() {
	if self.level >= 2 && !retrying {
		syscall.Exit(exitWedged)
	}
}

// stalled reports whether the child hung, was killed as hung, or gave up on
// a stuck execution.
func (o outcome) stalled() bool {
	// SIGKILL without hung: the watchdog of an ancestor killed the child
	// as the process that was running.
	return o.hung || o.status.Exited() && o.status.ExitStatus() == exitWedged ||
		o.status.Signaled() && o.status.Signal() == syscall.SIGKILL
}

// ok reports whether the child handed back its state and exited cleanly.
func (o outcome) ok() bool { return !o.hung && o.status.Exited() && o.status.ExitStatus() == 0 }

// wait reads everything the child sends until it exits. If the running
// process (the child or one of its descendants) neither beats nor uses CPU
// time for stall, it is killed. stall 0: no watchdog. alive, if set, is
// called whenever the child makes progress (a snapshot's own watchdog must
// not take the wait for a stuck execution).
func (c *child) wait(stall time.Duration, alive func()) outcome {
	defer syscall.Close(c.rd)
	var out outcome
	buf := make([]byte, 64<<10)
	lastBeat, lastCPU, since := shm.beat.Load(), int64(-1), time.Now()
	for {
		ready, err := pollIn(c.rd, time.Second)
		if err != nil && err != syscall.EINTR {
			break
		}
		orphaned()
		if ready {
			n, err := syscall.Read(c.rd, buf)
			if err == syscall.EINTR || err == syscall.EAGAIN {
				continue
			}
			if n <= 0 {
				break // EOF: the child is gone (or closed its end)
			}
			out.data = append(out.data, buf[:n]...)
			continue
		}
		run := int(shm.running.Load())
		b, cpu := shm.beat.Load(), cpuTime(run)
		if b != lastBeat || cpu != lastCPU {
			lastBeat, lastCPU, since = b, cpu, time.Now()
			if alive != nil {
				alive()
			}
			continue
		}
		if stall <= 0 {
			continue
		}
		if time.Since(since) >= stall {
			syscall.Kill(run, syscall.SIGKILL)
			if run == c.pid {
				out.hung = true
				shm.hangs.Add(1)
			}
			since = time.Now()
		}
	}
	for {
		_, err := syscall.Wait4(c.pid, &out.status, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	shm.running.Store(int64(syscall.Getpid()))
	return out
}

// pollIn waits up to d for fd to be readable (or closed).
func pollIn(fd int, d time.Duration) (bool, error) {
	type pollFd struct {
		fd      int32
		events  int16
		revents int16
	}
	const pollIn = 0x1
	p := pollFd{fd: int32(fd), events: pollIn}
	ts := syscall.NsecToTimespec(int64(d))
	n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if errno != 0 {
		return false, errno
	}
	return n > 0, nil // readable, or hung up (POLLHUP is reported regardless)
}

// cpuTime returns the CPU time (user+system, in clock ticks) of a process,
// or -1.
func cpuTime(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

// measureFork returns what one fork of this process costs: fork, a child
// that exits at once, and the wait.
func measureFork() time.Duration {
	best := time.Duration(0)
	for range 2 {
		start := time.Now()
		c, err := spawn()
		if err != nil {
			return 0
		}
		if c == nil {
			syscall.Exit(0)
		}
		c.wait(0, nil)
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// residentPages returns the process's resident set size in pages.
func residentPages() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n
}

const forkSupported = true
