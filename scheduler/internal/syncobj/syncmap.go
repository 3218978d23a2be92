package syncobj

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/races"
)

// Map is a drop-in replacement for sync.Map. Every method is one atomic
// operation on the map (a read or a write of the whole map, then a block
// boundary). Range visits keys in insertion order, so that an execution can
// be replayed.
type Map struct {
	mu   sync.Mutex  // guards m and keys when no execution controls the caller
	m    map[any]any `xbtest:"state"`
	keys []any
	_    [8]byte // sync.Map's size
}

// op runs f as one operation on the map: on key, or on every key when key
// is allKeys. f reports whether it wrote (stored or deleted); write says
// whether the operation may (for the explorer's read/write sets).
func (m *Map) op(write bool, key any, f func() (wrote bool)) {
	g := engine.Enter()
	if g != nil {
		g.OpPoint()
		g.Event()
		g.DataAccess(unsafe.Pointer(m), 1, write)
	}
	m.mu.Lock()
	wrote := f()
	m.mu.Unlock()
	if g != nil {
		_, all := key.(allKeys)
		g.Races().MapAccess(g.Index(), unsafe.Pointer(m), key, all, wrote)
		g.EndBlock()
	}
}

// allKeys stands for every key of a Map (Range, Clear).
type allKeys struct{}

func (m *Map) put(k, v any) {
	if m.m == nil {
		m.m = map[any]any{}
	}
	if _, ok := m.m[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.m[k] = v
}

func (m *Map) del(k any) bool {
	if _, ok := m.m[k]; !ok {
		return false
	}
	delete(m.m, k)
	for i, x := range m.keys {
		if x == k {
			m.keys = append(m.keys[:i], m.keys[i+1:]...)
			break
		}
	}
	return true
}

// Load returns the value stored for key.
func (m *Map) Load(key any) (value any, ok bool) {
	m.op(false, key, func() bool { value, ok = m.m[key]; return false })
	return
}

// Store sets the value for key.
func (m *Map) Store(key, value any) { m.op(true, key, func() bool { m.put(key, value); return true }) }

// LoadOrStore returns the existing value for key if present; otherwise it
// stores and returns value.
func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	m.op(true, key, func() bool {
		if actual, loaded = m.m[key]; !loaded {
			m.put(key, value)
			actual = value
		}
		return !loaded
	})
	return
}

// LoadAndDelete deletes the value for key, returning the previous value.
func (m *Map) LoadAndDelete(key any) (value any, loaded bool) {
	m.op(true, key, func() bool {
		value, loaded = m.m[key]
		return m.del(key)
	})
	return
}

// Delete deletes the value for key.
func (m *Map) Delete(key any) { m.op(true, key, func() bool { return m.del(key) }) }

// Swap stores value for key and returns the previous value.
func (m *Map) Swap(key, value any) (previous any, loaded bool) {
	m.op(true, key, func() bool {
		previous, loaded = m.m[key]
		m.put(key, value)
		return true
	})
	return
}

// CompareAndSwap swaps the value for key if it equals old.
func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	m.op(true, key, func() bool {
		if v, ok := m.m[key]; ok && v == old {
			m.put(key, new)
			swapped = true
		}
		return swapped
	})
	return
}

// CompareAndDelete deletes the entry for key if its value equals old.
func (m *Map) CompareAndDelete(key, old any) (deleted bool) {
	m.op(true, key, func() bool {
		if v, ok := m.m[key]; ok && v == old {
			deleted = m.del(key)
		}
		return deleted
	})
	return
}

// Range calls f for each key and value, in insertion order, until f returns
// false. As with sync.Map, f may modify the map.
func (m *Map) Range(f func(key, value any) bool) {
	var keys []any
	m.op(false, allKeys{}, func() bool { keys = append(keys, m.keys...); return false })
	for _, k := range keys {
		m.mu.Lock()
		v, ok := m.m[k]
		m.mu.Unlock()
		if ok && !f(k, v) {
			return
		}
	}
}

// Clear deletes all the entries.
func (m *Map) Clear() {
	m.op(true, allKeys{}, func() bool {
		clear(m.m)
		m.keys = nil
		return true
	})
}

// Pool is a drop-in replacement for sync.Pool, of its size, with New where
// sync.Pool has it. A Pool may drop its items at any time; this one keeps
// them, last in first out, within one execution and drops them between
// executions, so that executions are reproducible.
type Pool struct {
	state atomic.Pointer[poolState] `xbtest:"-"` // made on first use: no program state
	epoch uint64
	_     [16]byte
	New   func() any
}

type poolState struct {
	mu    sync.Mutex
	items []any
}

func (p *Pool) op(f func(s *poolState)) {
	g := engine.Enter()
	if g != nil {
		g.OpPoint()
		g.Event()
		g.DataAccess(unsafe.Pointer(p), 1, true)
	}
	s := p.state.Load()
	if s == nil {
		p.state.CompareAndSwap(nil, new(poolState))
		s = p.state.Load()
	}
	s.mu.Lock()
	if g != nil && p.epoch != g.Epoch() {
		p.epoch, s.items = g.Epoch(), nil
	}
	f(s)
	s.mu.Unlock()
	if g != nil {
		g.EndBlock()
	}
}

// Put adds x to the pool. It is synchronized before the Get that returns
// x, as the race detector has it for sync.Pool.
func (p *Pool) Put(x any) {
	if x == nil {
		return
	}
	if g := engine.Enter(); g != nil {
		g.Races().Publish(g.Index(), ifaceData(x), races.RolePool)
	}
	p.op(func(s *poolState) { s.items = append(s.items, x) })
}

// ifaceData is the data word of an interface value: what identifies a
// pooled item.
func ifaceData(x any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1] }

// Get removes an item from the pool and returns it, or calls New.
func (p *Pool) Get() any {
	var x any
	p.op(func(s *poolState) {
		if n := len(s.items); n > 0 {
			x = s.items[n-1]
			s.items = s.items[:n-1]
		}
	})
	if x != nil {
		if g := engine.Enter(); g != nil {
			g.Races().Observe(g.Index(), ifaceData(x), races.RolePool)
		}
	} else if p.New != nil {
		x = p.New()
	}
	return x
}
