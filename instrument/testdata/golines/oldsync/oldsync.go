// Package oldsync keeps the sync, sync/atomic and testing types inside types
// without a name (anonymous structs, pointers, slices, maps and channels of
// them), in a module whose go line the tests set: below go 1.18 the
// rewrite calls a wrapper per type instead of generic helpers, and the
// wrappers must name the rewritten types. It is written in Go 1.13.
package oldsync

import (
	"sync"
	"sync/atomic"
)

// Stats is shared by goroutines.
type Stats struct {
	mu struct {
		sync.Mutex
		quiescing bool
	}
	rw struct {
		sync.RWMutex
		m map[string]int
	}
	cond struct {
		c     *sync.Cond
		mu    sync.Mutex
		ready bool
	}
	wg   struct{ sync.WaitGroup }
	once struct {
		sync.Once
		v int
	}
	hits  atomic.Int64
	old   struct{ n int64 }
	val   atomic.Value
	locks []struct {
		sync.Mutex
		n int
	}
	byName map[string]*struct {
		sync.RWMutex
		n int
	}
}

// global is a package-level variable of an anonymous type with a mutex.
var global struct {
	sync.Mutex
	n int
}

// NewStats makes a Stats.
func NewStats(n int) *Stats {
	s := &Stats{}
	s.rw.m = make(map[string]int)
	s.cond.c = sync.NewCond(&s.cond.mu)
	s.locks = make([]struct {
		sync.Mutex
		n int
	}, n)
	s.byName = map[string]*struct {
		sync.RWMutex
		n int
	}{}
	s.val.Store(0)
	return s
}

// Work runs n goroutines that use every part of s and returns the count
// each part saw.
func (s *Stats) Work(n int) []int {
	done := make(chan *struct {
		sync.Mutex
		i int
	}, n)
	wgs := make(chan *sync.WaitGroup, 1)
	wgs <- &s.wg.WaitGroup
	wg := <-wgs
	for i := 0; i < n; i++ {
		wg.Add(1)
		i := i
		go func() {
			defer wg.Done()
			s.mu.Lock()
			s.mu.quiescing = i == n-1 || s.mu.quiescing
			s.mu.Unlock()
			s.rw.Lock()
			s.rw.m["k"]++
			s.rw.Unlock()
			s.once.Do(func() { s.once.v++ })
			s.hits.Add(1)
			atomic.AddInt64(&s.old.n, 1)
			l := &s.locks[i]
			l.Lock()
			l.n++
			l.Unlock()
			global.Lock()
			global.n++
			global.Unlock()
			s.cond.mu.Lock()
			s.cond.ready = true
			s.cond.c.Broadcast()
			s.cond.mu.Unlock()
			p := &struct {
				sync.Mutex
				i int
			}{i: i}
			p.Lock()
			done <- p
			p.Unlock()
		}()
	}
	s.cond.mu.Lock()
	for !s.cond.ready {
		s.cond.c.Wait()
	}
	s.cond.mu.Unlock()
	wg.Wait()
	close(done)
	sum := 0
	for d := range done {
		d.Lock()
		sum += d.i
		d.Unlock()
	}
	s.rw.RLock()
	k := s.rw.m["k"]
	s.rw.RUnlock()
	locked := 0
	for i := range s.locks {
		locked += s.locks[i].n
	}
	q := 0
	if s.mu.quiescing {
		q = 1
	}
	return []int{sum, k, s.once.v, int(s.hits.Load()), int(atomic.LoadInt64(&s.old.n)), locked, q}
}

// Named returns the entry of name, made on first use.
func (s *Stats) Named(name string) *struct {
	sync.RWMutex
	n int
} {
	s.rw.Lock()
	defer s.rw.Unlock()
	e := s.byName[name]
	if e == nil {
		e = &struct {
			sync.RWMutex
			n int
		}{}
		s.byName[name] = e
	}
	return e
}

// Global returns the package-level count.
func Global() int {
	global.Lock()
	defer global.Unlock()
	return global.n
}
