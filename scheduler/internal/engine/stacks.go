package engine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Stack replaces runtime.Stack in rewritten code. In an execution the
// goroutines of the test binary are not those of the program under go test:
// the test body runs on a pooled goroutine while the test's own goroutine
// waits in the explorer, xbtest has goroutines of its own, pooled goroutines
// are reused by later controlled goroutines (so a goroutine number would
// name two), and a parked controlled goroutine has the scheduler's frames on
// top. Code that reads the stacks of goroutines (go.uber.org/goleak finds
// leaked goroutines so) must see what it would see in Go: the dump is
// rewritten goroutine by goroutine (see stacks).
func Stack(buf []byte, all bool) int {
	r, t := enter()
	if r == nil {
		return runtime.Stack(buf, all)
	}
	return copy(buf, r.stacks(t, all))
}

// internalGoroutines are the numbers of xbtest's own goroutines in the test
// binary (pooled workers, the parent watch), which a dump leaves out
// whatever it catches them doing.
var internalGoroutines sync.Map

// MarkInternal records the calling goroutine as one of xbtest's own. It is
// for goroutines that live as long as the process (NumGoroutine counts
// them out for good).
func MarkInternal() {
	internalGoroutines.Store(curGoid(), true)
	ownGoroutines.Add(1)
}

// ownGoroutines counts xbtest's goroutines in the test binary: pooled
// workers, idle or running a controlled goroutine, and those marked
// internal.
var ownGoroutines atomic.Int64

// NumGoroutine replaces runtime.NumGoroutine in rewritten code: the count
// go test would give, consistent with Stack's dump. xbtest's own goroutines
// are left out, and so is the test's goroutine, which waits in the
// explorer: the controlled goroutines of the execution that exist (started
// or not, not ended) stand for the program's, its root for the test's
// goroutine. Goroutines xbtest does not control (package testing's main
// goroutine, those started outside an execution) count as they are.
// Without it a test comparing counts (a leak check) saw the pool of
// goroutines xbtest keeps, which grows from one execution to the next.
func NumGoroutine() int {
	n := runtime.NumGoroutine() - int(ownGoroutines.Load())
	r, _ := enter()
	if r == nil {
		return n
	}
	n-- // the test's goroutine, the host of the execution
	for _, t := range r.threads {
		if t.flushOf == nil && !t.isClock && !t.gone && t.status != stExited {
			n++
		}
	}
	return n
}

const (
	xbtestPrefix = "github.com/xbtest/xbtest/"
	// hostFrame is a frame of the test's own goroutine, which runs the
	// exploration: the frames below xbtest's are the test goroutine's in
	// go test.
	hostFrame = xbtestPrefix + "scheduler/internal/engine.(*Execution).Execute("
	// vidBase numbers the controlled goroutines other than the test
	// goroutine, by creation index: unique in an execution, the same in
	// every execution, and out of the range of the test binary's own.
	vidBase = 1000000
)

// testingFrames are the frames of package testingobj that stand for those
// of package testing in go test.
var testingFrames = map[string]string{
	xbtestPrefix + "scheduler/internal/testingobj.(*T).Run":      "testing.(*T).Run",
	xbtestPrefix + "scheduler/internal/testingobj.(*T).Parallel": "testing.(*T).Parallel",
	xbtestPrefix + "scheduler/internal/testingobj.(*T).runFunc":  "testing.tRunner",
}

// goroutineDump is one goroutine of a runtime.Stack dump.
type goroutineDump struct {
	id    int64
	state string
	lines []string // the frames, two lines each, then "created by" and its position
}

// rawStacks is the runtime's dump of every goroutine.
func rawStacks() []byte {
	for n := 64 << 10; ; n *= 2 {
		buf := make([]byte, n)
		if m := runtime.Stack(buf, true); m < n {
			return buf[:m]
		}
	}
}

// parseDump splits a dump into goroutines.
func parseDump(b []byte) []*goroutineDump {
	var gs []*goroutineDump
	var g *goroutineDump
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "goroutine "); ok && strings.HasSuffix(line, ":") {
			id, state, _ := strings.Cut(strings.TrimSuffix(rest, ":"), " ")
			n, _ := strconv.ParseInt(id, 10, 64)
			g = &goroutineDump{id: n, state: strings.TrimSuffix(strings.TrimPrefix(state, "["), "]")}
			gs = append(gs, g)
			continue
		}
		if g != nil && line != "" {
			g.lines = append(g.lines, line)
		}
	}
	return gs
}

// isXBFrame reports whether fn is a function of xbtest's own packages (not
// of a program under test whose path starts like theirs: the corpus, the
// scheduler's external tests).
func isXBFrame(fn string) bool {
	rest, ok := strings.CutPrefix(fn, xbtestPrefix)
	if !ok {
		return false
	}
	slash := strings.LastIndexByte(rest, '/') + 1
	dot := strings.IndexByte(rest[slash:], '.')
	if dot < 0 {
		return false
	}
	pkg := rest[:slash+dot]
	switch pkg {
	case "scheduler", "checkpoint", "replay", "eraser", "result", "settings":
		return true
	}
	return strings.HasPrefix(pkg, "scheduler/internal/") || strings.HasPrefix(pkg, "internal/")
}

// funcOf is the function a frame line names ("" for a position line).
func funcOf(line string) string {
	if strings.HasPrefix(line, "\t") {
		return ""
	}
	if rest, ok := strings.CutPrefix(line, "created by "); ok {
		name, _, _ := strings.Cut(rest, " in goroutine ")
		return name
	}
	if i := strings.LastIndexByte(line, '('); i > 0 {
		return line[:i]
	}
	return line
}

// frames returns g's frames as pairs of lines (function, position),
// without the "created by" pair, which it returns apart.
func (g *goroutineDump) frames() (frames, createdBy [][2]string) {
	for i := 0; i < len(g.lines); i++ {
		f := [2]string{g.lines[i], ""}
		if i+1 < len(g.lines) && strings.HasPrefix(g.lines[i+1], "\t") {
			f[1] = g.lines[i+1]
			i++
		}
		if strings.HasPrefix(f[0], "created by ") {
			createdBy = append(createdBy, f)
			continue
		}
		frames = append(frames, f)
	}
	return frames, createdBy
}

// userFrames drops xbtest's frames, except those that stand for package
// testing's: all with translate, T.Run and T.Parallel with testGoroutine
// (the test goroutine's own tRunner is among the host's frames).
func userFrames(frames [][2]string, translate, testGoroutine bool) [][2]string {
	var out [][2]string
	for _, f := range frames {
		fn := funcOf(f[0])
		if !isXBFrame(fn) {
			out = append(out, f)
			continue
		}
		if name, ok := testingFrames[fn]; ok && (translate || testGoroutine && name != "testing.tRunner") {
			out = append(out, [2]string{name + "(...)", "\t" + testingFile()})
		}
	}
	return out
}

func testingFile() string {
	return filepath.Join(stdlibSrc(), "testing", "testing.go") + ":0"
}

// stdlibSrc is the standard library's source directory as the binary's
// own frames name it (the GOROOT it was built with): where runtime.Gosched
// is, two levels up.
var stdlibSrc = sync.OnceValue(func() string {
	pc := reflect.ValueOf(runtime.Gosched).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	return filepath.Dir(filepath.Dir(file))
})

// goState is the state go test's runtime would show for t.
func (r *run) goState(t *thread) string {
	if t == r.cur {
		return "running"
	}
	if t.status != stWaiting {
		return "runnable"
	}
	switch on := t.on; {
	case strings.HasPrefix(on, "chan receive"), on == "subtest":
		return "chan receive"
	case strings.HasPrefix(on, "chan send"):
		return "chan send"
	case on == "nil channel (receive)":
		return "chan receive (nil chan)"
	case on == "nil channel (send)":
		return "chan send (nil chan)"
	case on == "select with no cases":
		return "select (no cases)"
	case strings.HasPrefix(on, "select"):
		return "select"
	case on == "time.Sleep":
		return "sleep"
	case on == "cond":
		return "sync.Cond.Wait"
	case on == "waitgroup":
		return "sync.WaitGroup.Wait"
	case strings.HasPrefix(on, "rwmutex"):
		return "sync.RWMutex.Lock"
	case strings.HasPrefix(on, "mutex"): // one it holds itself (WaitRelease)
		return "sync.Mutex.Lock"
	}
	return "runnable"
}

// vid is the goroutine number t shows in a dump.
func (r *run) vid(t *thread, host int64) int64 {
	if t.parent == nil && host != 0 {
		return host
	}
	return vidBase + int64(t.idx)
}

// stacks is the dump runtime.Stack(buf, all) would give in go test, called
// by cur: the test goroutine's host and xbtest's own goroutines are left
// out, each controlled goroutine shows its own frames under its own number
// and state, created by the function that started it (the test goroutine
// takes the frames below the host's RunTest, and its number), and one that
// has not started yet shows its function, as a runnable goroutine does.
func (r *run) stacks(cur *thread, all bool) []byte {
	gs := parseDump(rawStacks())
	var host *goroutineDump
	for _, g := range gs {
		for _, l := range g.lines {
			if strings.HasPrefix(l, hostFrame) {
				host = g
			}
		}
	}
	var hostID int64
	var hostTail [][2]string
	if host != nil {
		hostID = host.id
		fr, cb := host.frames()
		for i := len(fr) - 1; i >= 0; i-- {
			if isXBFrame(funcOf(fr[i][0])) {
				hostTail = append(fr[i+1:], cb...)
				break
			}
		}
	}
	byGoid := map[int64]*thread{}
	var unstarted []*thread
	for _, t := range r.threads {
		if t.flushOf != nil || t.isClock || t.gone || t.status == stExited {
			continue
		}
		if !t.started || t.w == nil {
			unstarted = append(unstarted, t)
			continue
		}
		byGoid[t.w.goid] = t
	}
	var out bytes.Buffer
	write := func(id int64, state string, frames [][2]string) {
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "goroutine %d [%s]:\n", id, state)
		for _, f := range frames {
			out.WriteString(f[0])
			out.WriteByte('\n')
			if f[1] != "" {
				out.WriteString(f[1])
				out.WriteByte('\n')
			}
		}
	}
	threadFrames := func(t *thread, g *goroutineDump) [][2]string {
		fr, _ := g.frames()
		if t.parent == nil {
			return append(userFrames(fr, false, true), hostTail...)
		}
		return append(userFrames(fr, true, false), r.createdBy(t, hostID))
	}
	for _, g := range gs {
		t := byGoid[g.id]
		if t == cur {
			write(r.vid(t, hostID), r.goState(t), threadFrames(t, g))
			break
		}
	}
	if !all {
		return out.Bytes()
	}
	// The goroutines of the test binary in the runtime's order, then the
	// controlled ones in creation order: which pooled goroutine runs
	// which controlled one varies from execution to execution, and the
	// dump must not.
	threadDumps := make([]*goroutineDump, len(r.threads))
	for _, g := range gs {
		if g == host {
			continue
		}
		if t, ok := byGoid[g.id]; ok {
			threadDumps[t.idx] = g
			continue
		}
		if _, ok := internalGoroutines.Load(g.id); ok {
			continue
		}
		fr, cb := g.frames()
		user := userFrames(fr, false, false)
		if len(user) == 0 {
			continue // one of xbtest's goroutines, or an idle pooled one
		}
		var keep [][2]string
		for _, f := range cb {
			if !isXBFrame(funcOf(f[0])) {
				keep = append(keep, f)
			}
		}
		write(g.id, g.state, append(user, keep...))
	}
	for _, t := range r.threads {
		if t == cur {
			continue
		}
		if g := threadDumps[t.idx]; g != nil {
			write(r.vid(t, hostID), r.goState(t), threadFrames(t, g))
			continue
		}
		if !slices.Contains(unstarted, t) || t.subtest {
			continue
		}
		pc := reflect.ValueOf(t.fn).Pointer()
		fn := runtime.FuncForPC(pc)
		if fn == nil {
			continue
		}
		file, line := fn.FileLine(pc)
		frame := [2]string{fn.Name() + "()", fmt.Sprintf("\t%s:%d", file, line)}
		write(r.vid(t, hostID), "runnable", [][2]string{frame, r.createdBy(t, hostID)})
	}
	return out.Bytes()
}

// createdBy is the "created by" frame of t: the function whose go statement
// started it, or package testing's T.Run for a subtest.
func (r *run) createdBy(t *thread, host int64) [2]string {
	in := ""
	if t.parent != nil {
		in = fmt.Sprintf(" in goroutine %d", r.vid(t.parent, host))
	}
	if t.subtest {
		return [2]string{"created by testing.(*T).Run" + in, "\t" + testingFile()}
	}
	frames := runtime.CallersFrames(t.spawnPCs[:t.nSpawn])
	for {
		f, more := frames.Next()
		if f.Function != "" && !isXBFrame(f.Function) {
			return [2]string{"created by " + f.Function + in, fmt.Sprintf("\t%s:%d", f.File, f.Line)}
		}
		if !more {
			break
		}
	}
	// An AfterFunc's function, which Go starts from the timer.
	return [2]string{"created by time.goFunc" + in, "\t" + filepath.Join(stdlibSrc(), "time", "sleep.go") + ":0"}
}

// curGoid is the calling goroutine's number.
func curGoid() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := bytes.TrimPrefix(buf[:n], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseInt(string(b), 10, 64)
	return id
}
