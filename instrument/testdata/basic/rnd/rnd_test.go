package rnd

import (
	cryptorand "crypto/rand"
	"hash/maphash"
	"math/rand"
	randv2 "math/rand/v2"
	"sync"
	"testing"
)

// TestRandomWork starts a random number of goroutines. Every execution of
// the body must draw the same numbers, or replaying a schedule's prefix
// would diverge (xbtest reports that as an error).
func TestRandomWork(t *testing.T) {
	n := 2 + rand.Intn(3) + randv2.IntN(2)
	countIn(t, n)
}

// TestMaphashSeeds starts a number of goroutines a maphash seed decides, as
// a hash table keyed by maphash lays out its keys by its seed: every
// execution must make the same seeds.
func TestMaphashSeeds(t *testing.T) {
	seed := maphash.MakeSeed()
	n := 2 + int(maphash.String(seed, "key")%3)
	countIn(t, n)
}

// TestCryptoRandWork starts a number of goroutines crypto/rand decides, as
// a program keyed by random identifiers does: every execution must draw the
// same bytes.
func TestCryptoRandWork(t *testing.T) {
	b := make([]byte, 4)
	cryptorand.Read(b)
	n := 2 + int(b[0]%3) + int(cryptorand.Text()[0]%2)
	countIn(t, n)
}

// countIn starts n goroutines that each count once under a lock, and checks
// the count.
func countIn(t *testing.T, n int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	count := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			count++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if count != n {
		t.Fatalf("count %d, want %d", count, n)
	}
}
