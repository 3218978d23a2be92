//go:build linux

package checkpoint

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
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
			out = append(out, fmt.Sprintf("a goroutine xbtest does not control is in a system call in %s", top))
		case strings.HasPrefix(state, "IO wait"):
			out = append(out, fmt.Sprintf("a goroutine waits on the network poller in %s", top))
		}
	}
	return dedup(append(out, polled()...))
}

var stackBuf []byte

// epolls are the epoll descriptors of the process (the runtime's poller
// makes one, once).
var epolls []int

// polled lists the descriptors registered with the runtime's network
// poller, other than the poller's own wake-up eventfd: the kernel lists the
// targets of an epoll instance in /proc/self/fdinfo.
func polled() []string {
	if len(epolls) == 0 {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return []string{"cannot list open files: " + err.Error()}
		}
		for _, e := range ents {
			if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "anon_inode:[eventpoll]" {
				if fd, err := strconv.Atoi(e.Name()); err == nil {
					epolls = append(epolls, fd)
				}
			}
		}
	}
	kind := map[int]string{}
	var fds []int
	for _, ep := range epolls {
		b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(ep))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "tfd:" {
				continue
			}
			fd, err := strconv.Atoi(f[1])
			if err != nil {
				continue
			}
			target, _ := os.Readlink("/proc/self/fd/" + f[1])
			if target != "anon_inode:[eventfd]" {
				kind[fd] = target
				fds = append(fds, fd)
			}
		}
	}
	sort.Ints(fds)
	var out []string
	for _, fd := range fds {
		what := kind[fd]
		switch {
		case strings.HasPrefix(what, "socket:"):
			what = "a socket"
		case strings.HasPrefix(what, "pipe:"):
			what = "a pipe"
		}
		out = append(out, fmt.Sprintf("the network poller watches %s (fd %d): its epoll instance would be shared with a forked child", what, fd))
	}
	return out
}

func firstFunc(body string) string {
	line, _, _ := strings.Cut(body, "\n")
	if i := strings.LastIndexByte(line, '('); i > 0 {
		line = line[:i]
	}
	return line
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
