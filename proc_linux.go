package xbtest

import "syscall"

// goTestProcAttr starts go test in a process group of its own (killed as
// one), which the kernel also kills if the command dies without cleaning
// up.
func goTestProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
