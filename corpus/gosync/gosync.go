// Package gosync holds programs whose behaviours depend on what Go's
// synchronization does and Java's monitors do not (see scheduler/audit.go):
// each was missed by every -algo of ExitBlock as the thesis defines it,
// since the thesis's proof assumes that a goroutine can observe another
// only through what that one does at a lock release.
package gosync

import "sync"

// Registry is read under a read lock, and its lookups are nested: Describe
// read-locks and calls Lookup, which read-locks again. A goroutine that
// write-locks in between (Go's RWMutex blocks new readers once a writer
// waits) deadlocks both: the classic recursive read-lock deadlock.
type Registry struct {
	mu    sync.RWMutex
	names map[string]string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]string{}} }

// Lookup returns the value of k.
func (r *Registry) Lookup(k string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.names[k]
}

// Describe looks k up under its own read lock: the nested RLock.
func (r *Registry) Describe(k string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return k + "=" + r.Lookup(k)
}

// DescribeFixed reads the map once under one read lock.
func (r *Registry) DescribeFixed(k string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return k + "=" + r.names[k]
}

// Set writes k.
func (r *Registry) Set(k, v string) {
	r.mu.Lock()
	r.names[k] = v
	r.mu.Unlock()
}

// Queue hands items to a consumer that waits on a Cond.
type Queue struct {
	mu    sync.Mutex
	c     *sync.Cond
	items []int
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.c = sync.NewCond(&q.mu)
	return q
}

// Take waits for an item and removes it.
func (q *Queue) Take() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		q.c.Wait()
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v
}

// PutAndPeek appends v, signals outside the lock (which Go allows), and
// locks again to return the head of the queue, assuming that the consumer
// it woke cannot run before it locks again: it can, take the only item,
// and leave the queue empty (index out of range).
func (q *Queue) PutAndPeek(v int) int {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.c.Signal()
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.items[0]
}

// PutAndPeekFixed signals while it holds the lock, and reads the head
// before it unlocks.
func (q *Queue) PutAndPeekFixed(v int) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, v)
	q.c.Signal()
	return q.items[0]
}

// Kick wakes a waiter if one is waiting on kick (a non-blocking send, as
// "kick" channels do) and reports whether it did.
func Kick(kick chan<- struct{}) bool {
	select {
	case kick <- struct{}{}:
		return true
	default:
		return false
	}
}

// WaitKickOrDone waits for a kick or for done and says which came.
func WaitKickOrDone(kick, done <-chan struct{}) string {
	select {
	case <-kick:
		return "kick"
	case <-done:
		return "done"
	}
}
