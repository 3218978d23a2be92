package oldsync

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

func TestOldSyncWork(t *testing.T) {
	s := NewStats(1)
	got := s.Work(1)
	if want := []int{0, 1, 1, 1, 1, 1, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("Work(1) = %v, want %v", got, want)
	}
}

// TestOldSyncFields keeps *testing.T, WaitGroups and Onces in fields of
// anonymous structs that goroutines share, and sends them on channels.
func TestOldSyncFields(t *testing.T) {
	s := NewStats(0)
	job := struct {
		t    *testing.T
		wg   *sync.WaitGroup
		once *sync.Once
		tb   testing.TB
		n    int32
		m    sync.Map
	}{t: t, wg: new(sync.WaitGroup), once: new(sync.Once), tb: t}
	jobs := make(chan *struct {
		t  *testing.T
		wg *sync.WaitGroup
	}, 2)
	results := make(chan []struct {
		sync.Mutex
		t *testing.T
	}, 2)
	for i := 0; i < 1; i++ {
		job.wg.Add(1)
		jobs <- &struct {
			t  *testing.T
			wg *sync.WaitGroup
		}{job.t, job.wg}
		go func() {
			j := <-jobs
			defer j.wg.Done()
			e := s.Named("x")
			e.Lock()
			e.n++
			e.Unlock()
			job.once.Do(func() { atomic.AddInt32(&job.n, 1) })
			job.m.Store("k", 1)
			results <- []struct {
				sync.Mutex
				t *testing.T
			}{{t: j.t}}
		}()
	}
	job.wg.Wait()
	for i := 0; i < 1; i++ {
		r := <-results
		r[0].Lock()
		if r[0].t != t {
			job.tb.Errorf("a result carries another *testing.T")
		}
		r[0].Unlock()
	}
	e := s.Named("x")
	e.RLock()
	defer e.RUnlock()
	if e.n != 1 || atomic.LoadInt32(&job.n) != 1 {
		job.t.Errorf("n = %d, once ran %d times", e.n, job.n)
	}
}
