//go:build linux

package checkpoint

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// hazards lists what would break in a forked child of this process right
// now: goroutines xbtest does not control that sit in a system call (they
// do not exist in the child), goroutines locked to their thread, os/signal's
// receiver (it stops), and descriptors the runtime's network poller may
// watch (sockets and pipes: the poller's epoll instance is shared with the
// child, so one process can steal the other's readiness events). Files on
// disk are no hazard, but their contents are not part of a snapshot.
func hazards() []string {
	var out []string
	if stackBuf == nil {
		stackBuf = make([]byte, 64<<10)
	}
	var buf []byte
	for {
		n := runtime.Stack(stackBuf, true)
		if n < len(stackBuf) {
			buf = stackBuf[:n]
			break
		}
		stackBuf = make([]byte, 2*len(stackBuf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, body, _ := strings.Cut(g, "\n")
		state := header[strings.IndexByte(header, '[')+1:]
		top := firstFunc(body)
		switch {
		case strings.Contains(body, "os/signal.signal_recv") || strings.Contains(body, "os/signal.loop"):
			out = append(out, "signal.Notify is in use (os/signal's receiver would stop in a forked child)")
		case strings.Contains(state, "locked to thread") && !strings.HasPrefix(header, "goroutine 1 "):
			out = append(out, fmt.Sprintf("a goroutine is locked to its OS thread (runtime.LockOSThread) in %s", top))
		case strings.HasPrefix(state, "syscall"):
			out = append(out, inSyscall+top)
		case strings.HasPrefix(state, "IO wait"):
			out = append(out, fmt.Sprintf("a goroutine waits on the network poller in %s", top))
		}
	}
	if self.level > 0 {
		// Forks below the zygote are safe because its processes have one
		// thread; the program may have started more (LockOSThread, a
		// system call that blocked).
		if tasks, err := os.ReadDir("/proc/self/task"); err == nil && len(tasks) > 1 {
			out = append(out, fmt.Sprintf("the program started threads in this forked process (it has %d)", len(tasks)))
		}
	}
	return dedup(append(out, polled()...))
}

var stackBuf []byte

// polled lists the descriptors registered with the runtime's network
// poller, other than the poller's own wake-up eventfd.
func polled() []string {
	if err := findPoller(); err != nil {
		return []string{err.Error()}
	}
	if !poller.known {
		return nil
	}
	targets, err := epollTargets(poller.ep)
	if err != nil {
		return []string{err.Error()}
	}
	slices.SortFunc(targets, func(a, b epollTarget) int { return a.fd - b.fd })
	var out []string
	for _, t := range targets {
		if t.fd == poller.wake {
			continue
		}
		what, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(t.fd))
		switch {
		case strings.HasPrefix(what, "socket:"):
			what = "a socket"
		case strings.HasPrefix(what, "pipe:"):
			what = "a pipe"
		}
		out = append(out, fmt.Sprintf("the network poller watches %s (fd %d): a forked child would share it with this process", what, t.fd))
	}
	return out
}

// The runtime's network poller is an epoll instance and an eventfd it wakes
// itself with. A forked child would share both with its parent (and its
// siblings): readiness of a descriptor the child registers could be taken
// by another process, which would also read the data word (a pointer into
// the child's memory) as its own, and a wake-up meant for one process could
// be eaten by another. So every child gets a poller of its own (see
// privatePoller); poller records, once per tree, the descriptor numbers the
// runtime uses, which a child inherits.
var poller struct {
	known    bool
	ep, wake int    // the runtime's epoll and eventfd descriptors
	wakeData uint64 // the data word the runtime registered the eventfd with
}

// epollTarget is one descriptor an epoll instance watches.
type epollTarget struct {
	fd     int
	events uint32
	data   uint64
}

// epollTargets lists what the epoll instance ep watches, as the kernel
// shows it in /proc/self/fdinfo ("tfd: 5 events: 19 data: 4d07e0 ...").
func epollTargets(ep int) ([]epollTarget, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(ep))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading the network poller's descriptors: %v", err)
	}
	var out []epollTarget
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "tfd:" || f[2] != "events:" || f[4] != "data:" {
			continue
		}
		fd, err1 := strconv.Atoi(f[1])
		ev, err2 := strconv.ParseUint(f[3], 16, 32)
		data, err3 := strconv.ParseUint(f[5], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("checkpoint: cannot read the network poller's descriptors from %q", line)
		}
		out = append(out, epollTarget{fd, uint32(ev), data})
	}
	return out, nil
}

// findPoller finds the runtime's poller: the epoll instance that watches an
// eventfd. It makes the runtime create its poller first (opening a file
// does), so that every process of the tree knows it.
func findPoller() error {
	if poller.known {
		return nil
	}
	if f, err := os.Open("/proc/self/stat"); err == nil {
		f.Close()
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("checkpoint: cannot list open files: %v", err)
	}
	for _, e := range ents {
		ep, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); target != "anon_inode:[eventpoll]" {
			continue
		}
		targets, err := epollTargets(ep)
		if err != nil {
			return err
		}
		for _, t := range targets {
			if target, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(t.fd)); target == "anon_inode:[eventfd]" {
				poller.known, poller.ep, poller.wake, poller.wakeData = true, ep, t.fd, t.data
				return nil
			}
		}
	}
	return nil
}

// privatePoller gives a new child a poller of its own: a new epoll instance
// and eventfd in place of the inherited ones, under the same descriptor
// numbers the runtime holds, the eventfd registered as the runtime did. (At
// a fork the inherited instance watches nothing else: polled is a hazard.)
// The eventfd starts signalled: a wake-up the parent had in flight would
// otherwise be lost to the child, whose runtime would wait for it forever.
func privatePoller() {
	if !poller.known {
		return
	}
	fail := func(what string, err error) {
		writeAll(2, []byte("xbtest: checkpoint: a forked child cannot make a network poller of its own: "+what+": "+err.Error()+"\n"))
		syscall.Exit(5)
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		fail("epoll_create1", err)
	}
	const efdCloexec, efdNonblock = 0x80000, 0x800
	wake, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, efdCloexec|efdNonblock, 0)
	if errno != 0 {
		fail("eventfd2", errno)
	}
	if err := syscall.Dup3(int(wake), poller.wake, syscall.O_CLOEXEC); err != nil {
		fail("dup3", err)
	}
	syscall.Close(int(wake))
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(poller.wakeData), Pad: int32(poller.wakeData >> 32)}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, poller.wake, &ev); err != nil {
		fail("epoll_ctl", err)
	}
	if err := syscall.Dup3(ep, poller.ep, syscall.O_CLOEXEC); err != nil {
		fail("dup3", err)
	}
	syscall.Close(ep)
	one := [8]byte{1}
	syscall.Write(poller.wake, one[:])
}

// firstFunc names the first function of a goroutine's stack that is not the
// runtime's or a system call wrapper: where the program is.
func firstFunc(body string) string {
	first := ""
	for _, line := range strings.Split(body, "\n") {
		if line == "" || line[0] == '\t' || strings.HasPrefix(line, "created by ") {
			continue
		}
		if i := strings.LastIndexByte(line, '('); i > 0 {
			line = line[:i]
		}
		if first == "" {
			first = line
		}
		if !strings.HasPrefix(line, "runtime.") && !strings.HasPrefix(line, "syscall.") && !strings.HasPrefix(line, "internal/") && !strings.HasPrefix(line, "golang.org/x/sys/") {
			return line
		}
	}
	return first
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
