//go:build unix && !linux

package xbtest

import "syscall"

// goTestProcAttr starts go test in a process group of its own (killed as
// one). Without Linux's parent-death signal, a command that dies without
// cleaning up leaves go test to the test binary, which watches the
// command's pid and exits when it is gone.
func goTestProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
