package engine

import (
	"os"
	"strconv"
	"strings"
)

// descendantsCPU returns the CPU time (in clock ticks) that the live
// processes descending from this one have used: a test waiting for a
// subprocess (go build, exec.Command) waits in code xbtest does not
// control, but it is not stuck while the subprocess works.
func descendantsCPU() (int64, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	type proc struct {
		ppid int
		cpu  int64
	}
	procs := map[int]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15), counted after ")".
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		procs[pid] = proc{ppid, ut + st}
	}
	self := os.Getpid()
	var total int64
	any := false
	for _, p := range procs {
		for a, n := p.ppid, 0; a > 1 && n < 64; a, n = procs[a].ppid, n+1 {
			if a == self {
				total += p.cpu
				any = true
				break
			}
			if _, ok := procs[a]; !ok {
				break
			}
		}
	}
	return total, any
}
