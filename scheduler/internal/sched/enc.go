package sched

import (
	"encoding/binary"
	"errors"
	"math"
)

// Handing exploration state between processes (fork checkpoints).
//
// A forked child hands back what it changed: the strategy's part
// (Strategy.Save, Strategy.Load) and the driver's (scheduler/internal/driver/handover.go).
// Parent and child are the same test binary, so the encoding is private
// to it: a plain sequence of varints, written by Enc and read by Dec.

// Enc appends values to B.
type Enc struct{ B []byte }

// Int, Uint, Bool, Bytes, Str, Strs and Int32s append one value each.
func (e *Enc) Int(v int64)   { e.B = binary.AppendVarint(e.B, v) }
func (e *Enc) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }
func (e *Enc) Bool(v bool) {
	if v {
		e.Uint(1)
	} else {
		e.Uint(0)
	}
}
func (e *Enc) Bytes(v []byte) { e.Uint(uint64(len(v))); e.B = append(e.B, v...) }
func (e *Enc) Str(v string)   { e.Uint(uint64(len(v))); e.B = append(e.B, v...) }
func (e *Enc) Strs(v []string) {
	e.Uint(uint64(len(v)))
	for _, s := range v {
		e.Str(s)
	}
}
func (e *Enc) Int32s(v []int32) {
	e.Bool(v != nil)
	e.Uint(uint64(len(v)))
	for _, x := range v {
		e.Int(int64(x))
	}
}

// Dec reads what an Enc wrote, in the same order. A read past the end or
// a malformed value sets Err (and every later read returns zero values);
// the caller checks Err before using what it decoded.
type Dec struct {
	B   []byte
	Err error
}

var errShort = errors.New("truncated exploration state")

// Uint, Int, Bool, Bytes, Str, Strs and Int32s read one value each.
func (d *Dec) Uint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

func (d *Dec) Int() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Fail marks the input as truncated.
func (d *Dec) Fail() {
	if d.Err == nil {
		d.Err = errShort
	}
	d.B = nil
}

func (d *Dec) Bool() bool { return d.Uint() != 0 }

// N reads a length, failing if it cannot be one.
func (d *Dec) N() int {
	n := d.Uint()
	if n > uint64(len(d.B))+1<<20 || n > math.MaxInt32 {
		d.Fail()
		return 0
	}
	return int(n)
}

func (d *Dec) Bytes() []byte {
	n := d.N()
	if n > len(d.B) {
		d.Fail()
		return nil
	}
	v := d.B[:n:n]
	d.B = d.B[n:]
	return v
}

func (d *Dec) Str() string { return string(d.Bytes()) }

func (d *Dec) Strs() []string {
	n := d.N()
	var v []string
	for i := 0; i < n && d.Err == nil; i++ {
		v = append(v, d.Str())
	}
	return v
}

func (d *Dec) Int32s() []int32 {
	isNil := !d.Bool()
	n := d.N()
	if isNil {
		return nil
	}
	v := make([]int32, 0, n)
	for i := 0; i < n && d.Err == nil; i++ {
		v = append(v, int32(d.Int()))
	}
	return v
}

// Decision, Decisions, Access (a CanonAccess) encode the shared types.
func (e *Enc) Decision(x *Decision) {
	e.Int(int64(x.Thread))
	e.Int(x.End)
	e.Int32s(x.Choices)
	e.Bool(x.Mid)
	e.Bool(x.Tick)
}

func (d *Dec) Decision() Decision {
	return Decision{Thread: int32(d.Int()), End: d.Int(), Choices: d.Int32s(), Mid: d.Bool(), Tick: d.Bool()}
}

func (e *Enc) Decisions(v []Decision) {
	e.Uint(uint64(len(v)))
	for i := range v {
		e.Decision(&v[i])
	}
}

func (d *Dec) Decisions() []Decision {
	n := d.N()
	v := make([]Decision, 0, n)
	for i := 0; i < n && d.Err == nil; i++ {
		v = append(v, d.Decision())
	}
	return v
}

func (e *Enc) Access(a *CanonAccess) {
	e.Uint(uint64(a.Kind))
	e.Uint(uint64(a.Addr))
	e.Int(int64(a.Key.Thread))
	e.Int(int64(a.Key.Seq))
	e.Uint(uint64(a.Off))
	e.Uint(uint64(a.Size))
	e.Bool(a.Write)
}

func (d *Dec) Access() CanonAccess {
	return CanonAccess{Kind: RegionKind(d.Uint()), Addr: uintptr(d.Uint()), Key: HeapKey{int32(d.Int()), int32(d.Int())},
		Off: uintptr(d.Uint()), Size: uintptr(d.Uint()), Write: d.Bool()}
}

// TSet encodes a thread set.
func (e *Enc) TSet(s *TSet) {
	e.Uint(uint64(len(s.w)))
	for _, w := range s.w {
		e.Uint(w)
	}
}

// TSet decodes a thread set.
func (d *Dec) TSet() TSet {
	var s TSet
	for n := d.N(); n > 0 && d.Err == nil; n-- {
		s.w = append(s.w, d.Uint())
	}
	return s
}

// CanonRW encodes a canonical read/write set, or nil.
func (e *Enc) CanonRW(c *CanonRW) {
	e.Bool(c != nil)
	if c == nil {
		return
	}
	e.Bool(c.UnknownR)
	e.Bool(c.UnknownW)
	e.Uint(uint64(len(c.Acc)))
	for i := range c.Acc {
		e.Access(&c.Acc[i])
	}
}

// CanonRW decodes a canonical read/write set, or nil.
func (d *Dec) CanonRW() *CanonRW {
	if !d.Bool() {
		return nil
	}
	c := &CanonRW{UnknownR: d.Bool(), UnknownW: d.Bool()}
	for m := d.N(); m > 0 && d.Err == nil; m-- {
		c.Acc = append(c.Acc, d.Access())
	}
	return c
}
