// Package claims is a table of numbered slots that the processes of one
// machine share through a memory-mapped file: each slot belongs to the
// first process that claims it, and a process that asks again gets the
// same answer. Under -parallel the worker processes of one test claim the
// parts of its schedule tree this way as they meet them
// (scheduler/internal/shard), so whichever is free takes the next part,
// and the parent (package xbtest) reads from the same file how far the
// test has got. The processes that run a package's tests side by side
// (lanes) claim whole tests the same way, by name (ClaimTest).
//
// The file is sparse: it is made big enough for every slot an exploration
// can need (Slots), but only the pages of the slots claimed take memory,
// and they are claimed in order. A claim is one compare-and-swap on the
// shared page, which the forked children of a process (fork checkpoints)
// share too.
package claims

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Slots is how many slots a table has. A claim past them is the first
// member's (Claim): a part of the tree too far down the order to share.
const Slots = 16 << 20

// header is the size of the table's header: the schedules counted so far
// (a uint64), then room to grow, page aligned so that the slots' pages are
// claimed in order.
const header = 64

const size = header + 4*Slots

// Table is one mapped claims file.
type Table struct {
	mem []byte
}

// Open maps the claims file path, making it if it does not exist; every
// process that opens the same path shares its slots.
func Open(path string) (*Table, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < size {
		// Every opener truncates to the same size: never smaller than
		// another's, so no claim is lost.
		if err := f.Truncate(size); err != nil {
			return nil, err
		}
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	return &Table{mem: mem}, nil
}

// Close unmaps the table; the file stays for the other processes.
func (t *Table) Close() error {
	if t == nil || t.mem == nil {
		return nil
	}
	err := syscall.Munmap(t.mem)
	t.mem = nil
	return err
}

func (t *Table) word(i int) *uint32 { return (*uint32)(unsafe.Pointer(&t.mem[header+4*i])) }

func (t *Table) counter() *uint64 { return (*uint64)(unsafe.Pointer(&t.mem[0])) }

// Claim claims slot i for member m (0, 1, ...) and reports whether it is
// m's: the first member to claim a slot owns it. Slots past Slots are
// member 0's.
func (t *Table) Claim(i, m int) bool {
	if i < 0 || i >= Slots {
		return m == 0
	}
	w := t.word(i)
	me := uint32(m) + 1
	if atomic.CompareAndSwapUint32(w, 0, me) {
		return true
	}
	return atomic.LoadUint32(w) == me
}

// Owner is the member that claimed slot i, -1 if none has.
func (t *Table) Owner(i int) int {
	if i < 0 || i >= Slots {
		return 0
	}
	return int(atomic.LoadUint32(t.word(i))) - 1
}

// AddSchedules adds n to the schedules the members have counted and
// returns the new total.
func (t *Table) AddSchedules(n int) int { return int(atomic.AddUint64(t.counter(), uint64(n))) }

// Schedules is the schedules the members have counted so far.
func (t *Table) Schedules() int { return int(atomic.LoadUint64(t.counter())) }

// ReadSchedules reads the schedules counted so far from the claims file
// path without mapping it (0 if there is none yet): the parent's view.
func ReadSchedules(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var b [8]byte
	if n, _ := f.ReadAt(b[:], 0); n < 8 {
		return 0
	}
	return int(binary.NativeEndian.Uint64(b[:])) // as the mapping holds it
}

// Path is the claims file of test's exploration in dir after gen
// restarts (a restart starts the tree over, and its parts with it).
func Path(dir, test string, gen int) string {
	return filepath.Join(dir, fmt.Sprintf("%016x.%d", hash(test), gen))
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// ClaimTest claims test for member m among the processes that share dir
// and reports whether it is m's: the first member to claim a test owns
// it, and asking again (a fresh process of the same member, after one
// that crashed) gives the same answer. The claim is a file made whole
// under a name of its own, then linked to the test's name, which fails if
// another member's is there: no member reads a claim half written.
func ClaimTest(dir, test string, m int) (bool, error) {
	path := filepath.Join(dir, fmt.Sprintf("%016x.test", hash(test)))
	me := strconv.Itoa(m)
	tmp := path + "." + me
	if err := os.WriteFile(tmp, []byte(me), 0o600); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	owner, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	return string(owner) == me, nil
}
