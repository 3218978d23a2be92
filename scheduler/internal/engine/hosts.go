package engine

import (
	"runtime"
	"sync"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/scheduler/internal/races"
	"github.com/xbtest/xbtest/scheduler/internal/sched"
	"github.com/xbtest/xbtest/scheduler/internal/srcpos"
	"github.com/xbtest/xbtest/scheduler/internal/storebuf"
)

// The engine's components have their own state and packages, and reach
// the execution only through a host interface, which an adapter of run
// implements here, so that run's own methods stay the execution's: the
// store buffers (package scheduler/internal/storebuf, storebuf.Host,
// bufHost) and race detection (package scheduler/internal/races,
// races.Host, raceHost). (The other components' adapters are with the
// engine's side of them: clockHost in clock.go, deadlockHost in
// deadlock.go, guideHost in guide.go.)

// bufHost is the execution as the store buffers' host (storebuf.Host):
// the scheduling events, the flush pseudo-threads, the explorer's sets and
// the names of memory the buffers of package scheduler/internal/storebuf
// need. run.buf is the execution's buffers, thread.sb a goroutine's,
// Learnt.flush the passes.
type bufHost struct{ r *run }

var _ storebuf.Host = bufHost{}

// reset prepares the store buffers for a new execution.
func (h bufHost) reset() {
	r := h.r
	var passes *storebuf.Passes
	if r.known != nil && r.guide == nil && storebuf.PassesOn(&r.cfg.Settings, r.cfg.Oracle) {
		passes = &r.known.flush
	}
	r.buf.Reset(h, r.mem, passes, r.cfg.Race)
}

// passKind is the kind of a point the store buffers may pass.
func passKind(pass bool) pointKind {
	if pass {
		return ptPass
	}
	return ptBoundary
}

func (h bufHost) UnfencedEvent(g int32) {
	r := h.r
	t := r.threads[g]
	t.unfenced = true
	r.event(t)
	t.unfenced = false
}

func (h bufHost) Point(g int32, pass, access bool) {
	r := h.r
	t := r.threads[g]
	r.transfer(t, r.point(t, passKind(pass)))
	if access {
		r.accessed = true
	}
}

func (h bufHost) Yield(g int32) { h.r.yield(h.r.threads[g]) }

func (h bufHost) WakeFlusher(b *storebuf.Buf) {
	r := h.r
	if b.Flusher < 0 {
		f := r.newThread(nil, nil)
		f.flushOf = b
		f.fn = func() { h.flushLoop(f, b) }
		b.Flusher = f.idx
	}
	f := r.threads[b.Flusher]
	f.status = stRunnable
	f.on, f.onObj = "", -1
	if r.exploring {
		r.strat.Woken(f.idx, -1)
	}
}

// flushLoop is the body of a flush pseudo-thread: each block commits the
// oldest entry of its buffer; with nothing left it waits for the next store.
func (h bufHost) flushLoop(f *thread, b *storebuf.Buf) {
	r := h.r
	for {
		r.event(f)
		if r.buf.Flush(b) {
			r.parkHere(f, "store", -1)
		} else {
			r.yield(f)
		}
	}
}

func (h bufHost) StopFlusher(b *storebuf.Buf) {
	r := h.r
	if f := r.threads[b.Flusher]; f.status == stRunnable {
		f.status = stWaiting
		f.on, f.onObj = "store", -1
		if r.exploring {
			r.strat.Disable(f.idx)
		}
	}
}

func (h bufHost) Committed(addr, size uintptr) {
	r := h.r
	if r.exploring {
		r.strat.Access(addr, size, true)
	}
}

func (h bufHost) Buffered(g int32, pos uint32) {
	h.r.guide.StoreStep(h.r.threads[g].id(), "store buffered", Pos(pos))
}

func (h bufHost) Drained(b *storebuf.Buf) {
	r := h.r
	if g := r.guide; g.Records() { // the buffer's name is not built for nothing
		g.StoreStep(r.bufName(b), "commit (fence)", Pos(b.Entries()[0].Where()))
	}
}

func (h bufHost) Region(addr uintptr) (sched.RegionKind, sched.HeapKey, uintptr) {
	r := h.r
	kind, reg := r.heap.Classify(addr)
	if reg == nil {
		return kind, sched.HeapKey{}, 0
	}
	return kind, reg.Key, reg.Base
}

// NextFlushPass is called when a pass of the store buffers has explored
// its last schedule (learnt false) or learnt a racy location: it reports
// whether another pass starts (and starts it; the driver then starts the
// exploration over with a new strategy, keeping the findings). schedules
// is how many the exploration has explored so far.
func (l *Learnt) NextFlushPass(cfg *Config, learnt bool, schedules int) bool {
	return l.flush.Next(&cfg.Settings, cfg.Oracle, learnt, schedules)
}

// FlushPassGrew reports whether the pass under way learnt a racy word: the
// exploration starts over in the next pass.
func (l *Learnt) FlushPassGrew() bool { return l.flush.Grew() }

// FlushPassesNote says for the result what the passes did (empty: nothing
// to say); complete is whether the exploration ended without a bound.
func (l *Learnt) FlushPassesNote(cfg *Config, complete bool, schedules int) string {
	return l.flush.Note(&cfg.Settings, cfg.Oracle, complete, schedules)
}

// raceHost is the execution as the race detection's host (races.Host,
// package scheduler/internal/races): names of goroutines, memory, locks
// and source positions, and where races and notes go. run.race is the
// execution's detection.
type raceHost struct{ r *run }

var _ races.Host = raceHost{}

func (h raceHost) GoroutineID(idx int32) string { return h.r.threads[idx].id() }

func (h raceHost) MemoryName(addr uintptr) string { return h.r.heap.Describe(addr) }

func (h raceHost) LockName(lock any) string {
	l, _ := lock.(*lockState)
	return h.r.lockName(l)
}

func (h raceHost) Raced(addr uintptr) { h.r.buf.LearnRacy(addr) }

// OnOwnStack implements races.Host: the access is made by the running
// goroutine, on its own goroutine's stack.
func (raceHost) OnOwnStack(addr uintptr) bool {
	lo, hi := stackBounds()
	return lo <= addr && addr < hi
}

func (h raceHost) ReportRace(f *result.Finding, key string, prevT int32, cur, prev uint32) {
	r := h.r
	r.addFinding(f, key)
	r.findings[len(r.findings)-1].AfterGC = gcCycles() != r.gcAtStart
	if r.trace {
		r.guide.TraceRace(f, prevT, cur, prev)
	}
}

func (h raceHost) Note(s string) { h.r.notes = append(h.r.notes, s) }

func (h raceHost) TracedAccess(g int32, pos uint32) { h.r.guide.TraceAccess(g, pos) }

func (raceHost) PosString(pos uint32) string  { return Pos(pos).String() }
func (raceHost) PosFile(pos uint32) string    { return Pos(pos).File() }
func (raceHost) PosExpr(pos uint32) string    { return Pos(pos).Expr() }
func (raceHost) RacyReason(pos uint32) string { return racyReason(Pos(pos)) }

// SitePos is sitePos for the detector, whose skip counts this frame.
func (raceHost) SitePos(skip int) uint32 { return uint32(sitePos(skip)) }

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
	file, line := srcpos.FirstUserFrame(all[:n])
	if file == "" {
		file = "?"
	}
	p := srcpos.RegisterPositions(file, int32(line))
	sites.Store(pcs, p)
	return p
}
