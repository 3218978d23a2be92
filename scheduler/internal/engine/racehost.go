package engine

import (
	"runtime"
	"sync"

	"github.com/xbtest/xbtest/result"
)

// run is the race detection's host (races.Host, package
// scheduler/internal/races): names of goroutines, memory, locks and source
// positions, and where races and notes go. run.race is the execution's
// detection.

func (r *run) GoroutineID(idx int32) string { return r.threads[idx].id() }

func (r *run) MemoryName(addr uintptr) string { return r.heap.describe(addr) }

func (r *run) LockName(lock any) string {
	l, _ := lock.(*lockState)
	return r.lockName(l)
}

func (r *run) Raced(addr uintptr) { r.buf.LearnRacy(addr) }

func (r *run) ReportRace(f *result.Finding, key string, prevT int32, cur, prev uint32) {
	r.addFinding(f, key)
	if r.trace {
		r.guide.traceRace(f, prevT, cur, prev)
	}
}

func (r *run) Note(s string) { r.notes = append(r.notes, s) }

func (r *run) TracedAccess(g int32, pos uint32) { r.guide.traceAccess(r.threads[g], Pos(pos)) }

func (r *run) PosString(pos uint32) string  { return Pos(pos).String() }
func (r *run) PosFile(pos uint32) string    { return Pos(pos).File() }
func (r *run) PosExpr(pos uint32) string    { return Pos(pos).Expr() }
func (r *run) RacyReason(pos uint32) string { return racyReason(Pos(pos)) }

// SitePos is sitePos for the detector, whose skip counts this frame.
func (r *run) SitePos(skip int) uint32 { return uint32(sitePos(skip)) }

// sites caches the position of each call site of the API that comes
// without one (sync/atomic replacements, hand-written calls of Read and
// Write), found from the stack, which is slow.
var sites sync.Map // [5]uintptr -> Pos

// sitePos returns the position of the first user frame above skip frames
// (runtime.Callers counting: 1 is sitePos itself).
// Five frames identify the call site: they reach past the scheduler's own
// frames (memory, read, Read, and package scheduler's Read forwarding to
// it; store, an atomic replacement and its forwarder) into the caller.
func sitePos(skip int) Pos {
	var pcs [5]uintptr
	runtime.Callers(skip, pcs[:])
	if p, ok := sites.Load(pcs); ok {
		return p.(Pos)
	}
	var all [16]uintptr
	n := runtime.Callers(skip, all[:])
	file, line := firstUserFrame(all[:n])
	if file == "" {
		file = "?"
	}
	p := RegisterPositions(file, int32(line))
	sites.Store(pcs, p)
	return p
}
