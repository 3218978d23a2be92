// Package srcpos names places in the program under test for reports: the
// source positions of instrumented code, the first stack frame outside
// xbtest, and the text of a source line. It is the one place that knows
// which frames are xbtest's own, so that every report (a finding's
// position, a schedule's anchors, T's failures) names the same frame.
//
// # Positions of instrumented code
//
// The rewriter numbers the memory accesses of each file it rewrites and
// registers their lines once per process (RegisterPositions), and their
// source text, which names the variable in race reports (RegisterExprs). A
// hook then carries a Pos, a uint32, instead of a file and line: cheap to
// pass on every access, named only when a report needs it (String,
// FileLine, Expr).
//
// # Frames
//
// A frame is xbtest's own (OwnFrame) when it is a function of package
// scheduler (the hooks rewritten code calls), of the engine, of the
// drop-in objects (syncobj, chanobj) or of the model of *testing.T
// (testingobj), or a helper the rewriter generates into user packages
// (named _xb...). Those packages are named here by path only, never
// imported: this package imports none of ours. Caller, FirstUser,
// FirstUserFrame and UserFrame look past such frames and the runtime's to
// the program's; Panic finds a panic's position in a printed stack; OpName
// names the operation of a hook from its stack (Mutex.Unlock), as
// schedules record it.
//
// # Source lines
//
// SourceLine reads a line of a source file once per process (a schedule's
// anchors compare lines by their text, so that a replay survives an edit
// above them); SourceAt finds it again from a short position printed by
// this process.
//
// Positions are short, as reports print them (Short): the file cut to its
// last directory and name, then the line.
package srcpos

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Pos names a source position of instrumented code (see RegisterPositions);
// 0 is unknown.
type Pos uint32

var positions struct {
	sync.Mutex
	file []string
	line []int32
	expr map[Pos]string
}

// RegisterPositions records the positions of the memory accesses of one
// instrumented file and returns the Pos of the first; the rewriter numbers
// an access site k of the file base+k. lines holds the line of every site.
func RegisterPositions(file string, lines ...int32) Pos {
	positions.Lock()
	defer positions.Unlock()
	if len(positions.file) == 0 {
		positions.file = append(positions.file, "")
		positions.line = append(positions.line, 0)
	}
	base := Pos(len(positions.file))
	for _, l := range lines {
		positions.file = append(positions.file, file)
		positions.line = append(positions.line, l)
	}
	return base
}

// RegisterExprs records the source text of the accesses at base, base+1...
// (the expression read or written), which names the variable in race
// reports. It returns base.
func RegisterExprs(base Pos, exprs ...string) Pos {
	positions.Lock()
	defer positions.Unlock()
	if positions.expr == nil {
		positions.expr = map[Pos]string{}
	}
	for i, e := range exprs {
		if e != "" {
			positions.expr[base+Pos(i)] = e
		}
	}
	return base
}

// Expr returns the source text of the access at p, if known.
func (p Pos) Expr() string {
	positions.Lock()
	defer positions.Unlock()
	return positions.expr[p]
}

// File returns the file of p, shortened as in String.
func (p Pos) File() string {
	s := p.String()
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i]
	}
	return s
}

// FileLine returns p's file and line ("" if unknown).
func (p Pos) FileLine() (string, int) {
	positions.Lock()
	defer positions.Unlock()
	if p == 0 || int(p) >= len(positions.file) {
		return "", 0
	}
	return positions.file[p], int(positions.line[p])
}

// String returns file:line.
func (p Pos) String() string {
	positions.Lock()
	defer positions.Unlock()
	if p == 0 || int(p) >= len(positions.file) {
		return "?"
	}
	return Short(positions.file[p], int(positions.line[p]))
}

// OwnFrame reports whether a stack frame belongs to xbtest: its runtime
// (package scheduler's hooks, the engine and the packages it was split
// into, the drop-in objects), or the helpers the rewriter generates into
// user packages (named _xb...).
func OwnFrame(fn string) bool {
	if strings.HasPrefix(fn, schedPkg) || strings.HasPrefix(fn, enginePkg) || strings.HasPrefix(fn, objectsPkg) || strings.HasPrefix(fn, chanobjPkg) || strings.HasPrefix(fn, testingobjPkg) ||
		strings.HasPrefix(fn, srcposPkg) || strings.HasPrefix(fn, maporderPkg) || strings.HasPrefix(fn, guidePkg) || strings.HasPrefix(fn, locationPkg) {
		return true
	}
	return strings.Contains(fn, "._xb") || strings.Contains(fn, ".(*_xb")
}

// Caller returns file:line of the first caller outside the scheduler,
// looking from the caller of Caller (skip 1) or skip-1 frames above it.
func Caller(skip int) string {
	var pcs [16]uintptr
	n := runtime.Callers(skip+1, pcs[:])
	return FirstUser(pcs[:n])
}

// FirstUser is file:line of FirstUserFrame ("" if there is none).
func FirstUser(pcs []uintptr) string {
	if file, line := FirstUserFrame(pcs); file != "" {
		return Short(file, line)
	}
	return ""
}

// FirstUserFrame returns the file and line of the first frame outside
// xbtest and the runtime ("" if there is none).
func FirstUserFrame(pcs []uintptr) (string, int) {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function != "" && !OwnFrame(f.Function) && !strings.HasPrefix(f.Function, "runtime.") {
			return f.File, f.Line
		}
		if !more {
			return "", 0
		}
	}
}

// Short is file:line with file cut to its last directory and name, as
// reports name positions.
func Short(file string, line int) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return file + ":" + strconv.Itoa(line)
}

// Panic finds the position of a panic in a stack printed by
// debug.Stack: the first frame after runtime.gopanic that is not the runtime.
func Panic(stack []byte) string {
	lines := bytes.Split(stack, []byte("\n"))
	seenPanic := false
	for i := 0; i+1 < len(lines); i++ {
		fn := string(lines[i])
		if strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "runtime.gopanic") {
			seenPanic = true
			continue
		}
		if !seenPanic || strings.HasPrefix(fn, "\t") || strings.HasPrefix(fn, "runtime.") || OwnFrame(fn) {
			continue
		}
		loc := strings.TrimSpace(string(lines[i+1]))
		if k := strings.LastIndex(loc, " +0x"); k >= 0 {
			loc = loc[:k]
		}
		if k := strings.LastIndexByte(loc, ':'); k >= 0 {
			if n, err := strconv.Atoi(loc[k+1:]); err == nil {
				return Short(loc[:k], n)
			}
		}
	}
	return ""
}

// OpName names the operation of a hook from its stack: the outermost
// function of the scheduler's API (package scheduler's, or the engine's,
// package syncobj's, package chanobj's or package testingobj's where
// package scheduler declares the type by alias, as Cond), e.g.
// (*Mutex).Unlock becomes Mutex.Unlock.
//
// Traced executions name the operation at every block's end, and a
// schedule of a loop ends its blocks at the same few stacks over and over:
// names are cached by the whole stack, which determines them.
func OpName(pcs []uintptr) string {
	if len(pcs) == 0 {
		return "?"
	}
	key := unsafe.String((*byte)(unsafe.Pointer(&pcs[0])), len(pcs)*int(unsafe.Sizeof(pcs[0])))
	opMu.Lock()
	name, ok := opNames[key]
	opMu.Unlock()
	if ok {
		return name
	}
	name = opName(pcs)
	opMu.Lock()
	opNames[strings.Clone(key)] = name
	opMu.Unlock()
	return name
}

var (
	opMu    sync.Mutex
	opNames = map[string]string{} // by the stack's PCs, as bytes

	opTrim = strings.NewReplacer("(*", "", ")", "", "[...]", "")
)

func opName(pcs []uintptr) string {
	name := ""
	frames := runtimeFrames(pcs)
	for _, f := range frames {
		if strings.HasPrefix(f, schedPkg) {
			name = f[len(schedPkg):]
		} else if strings.HasPrefix(f, enginePkg) {
			name = f[len(enginePkg):]
		} else if strings.HasPrefix(f, objectsPkg) {
			name = f[len(objectsPkg):]
		} else if strings.HasPrefix(f, chanobjPkg) {
			name = f[len(chanobjPkg):]
		} else if strings.HasPrefix(f, testingobjPkg) {
			name = f[len(testingobjPkg):]
		} else if !OwnFrame(f) && !strings.HasPrefix(f, "runtime.") {
			break
		}
	}
	name = opTrim.Replace(name)
	if name == "" {
		return "?"
	}
	return name
}

// The prefixes of the functions of package scheduler (the hooks rewritten
// code calls, which forward to the engine or to the drop-in objects), of
// the engine, of the drop-in objects (packages scheduler/internal/syncobj
// and scheduler/internal/chanobj), of the model of *testing.T, and of the
// packages split out of the engine whose frames were the engine's before
// (this one; maporder, whose iterators call a range loop's body; guide;
// location): named here, never imported.
const (
	schedPkg      = "github.com/xbtest/xbtest/scheduler."
	enginePkg     = "github.com/xbtest/xbtest/scheduler/internal/engine."
	objectsPkg    = "github.com/xbtest/xbtest/scheduler/internal/syncobj."
	chanobjPkg    = "github.com/xbtest/xbtest/scheduler/internal/chanobj."
	testingobjPkg = "github.com/xbtest/xbtest/scheduler/internal/testingobj."
	srcposPkg     = "github.com/xbtest/xbtest/scheduler/internal/srcpos."
	maporderPkg   = "github.com/xbtest/xbtest/scheduler/internal/maporder."
	guidePkg      = "github.com/xbtest/xbtest/scheduler/internal/guide."
	locationPkg   = "github.com/xbtest/xbtest/scheduler/internal/location."
)

// SourceLine returns the trimmed text of a line of a source file ("" if it
// cannot be read).
func SourceLine(file string, line int) string {
	srcMu.Lock()
	defer srcMu.Unlock()
	lines, ok := srcCache[file]
	if !ok {
		b, err := os.ReadFile(file)
		if err == nil {
			lines = strings.Split(string(b), "\n")
		}
		srcCache[file] = lines
		srcShort[Short(file, 0)] = file
	}
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line-1])
}

// SourceAt returns the source text at a short position file:line printed
// by this process ("" if unknown).
func SourceAt(pos string) string {
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return ""
	}
	var line int
	fmt.Sscan(pos[i+1:], &line)
	srcMu.Lock()
	file := srcShort[pos[:i]+":0"]
	srcMu.Unlock()
	if file == "" {
		return ""
	}
	return SourceLine(file, line)
}

var (
	srcMu    sync.Mutex
	srcCache = map[string][]string{}
	srcShort = map[string]string{}
)

// UserFrame returns the file, line and function of the first frame outside
// xbtest and the runtime ("" if there is none).
func UserFrame(pcs []uintptr) (string, int, string) {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function != "" && !OwnFrame(f.Function) && !strings.HasPrefix(f.Function, "runtime.") {
			fn := f.Function
			if i := strings.LastIndexByte(fn, '/'); i >= 0 {
				fn = fn[i+1:]
			}
			return f.File, f.Line, fn
		}
		if !more {
			return "", 0, ""
		}
	}
}

// runtimeFrames returns the function names of a stack, innermost first.
func runtimeFrames(pcs []uintptr) []string {
	var out []string
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		out = append(out, f.Function)
		if !more {
			return out
		}
	}
}
