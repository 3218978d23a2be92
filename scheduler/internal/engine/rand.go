package engine

import (
	"hash/maphash"
	randv1 "math/rand"
	randv2 "math/rand/v2"
	"sync"
	"unsafe"
)

// Randomness must be fixed by the schedule, or a replayed prefix would not
// reproduce. The rewriter redirects the top-level functions of math/rand and
// math/rand/v2 to these sources, which every execution reseeds identically;
// outside an execution they are the packages' own.

// Rand returns the math/rand source of the current execution.
func Rand() *randv1.Rand {
	r, _ := enter()
	if r == nil {
		return randv1.New(randv1.NewSource(randv1.Int63()))
	}
	if r.rand1 == nil {
		r.rand1 = randv1.New(randv1.NewSource(1))
	}
	return r.rand1
}

// RandV2 returns the math/rand/v2 source of the current execution.
func RandV2() *randv2.Rand {
	r, _ := enter()
	if r == nil {
		return randv2.New(randv2.NewPCG(randv2.Uint64(), randv2.Uint64()))
	}
	if r.rand2 == nil {
		r.rand2 = randv2.New(randv2.NewPCG(1, 2))
	}
	return r.rand2
}

// MaphashMakeSeed returns the k-th maphash seed of the current execution,
// fixed by k: a hash table keyed by maphash lays out its keys the same way
// in every execution. Outside an execution it is maphash.MakeSeed.
//
// A Seed is a nonzero uint64 the package draws at random; none of its
// exported functions makes one from a given value, so the value is set in
// place (the layout is checked at init).
func MaphashMakeSeed() maphash.Seed {
	r, _ := enter()
	if r == nil {
		return maphash.MakeSeed()
	}
	r.seeds++
	var s maphash.Seed
	*(*uint64)(unsafe.Pointer(&s)) = splitmix64(r.seeds) | 1
	return s
}

// cryptoRand is the stream behind crypto/rand and every implicit source of
// cryptographic randomness in the crypto packages while a test runs: the
// driver fixes it with Go 1.26's testing/cryptotest.SetGlobalRandom and
// hands it here (SetCryptoSource); every execution restarts it from the
// state it had then, so that an execution draws the same bytes when its
// prefix is replayed (go-memdb's TestWatchUpdate diverged on its random
// identifiers). Code xbtest does not control that draws at the same time
// (a goroutine started outside an execution) shares the stream.
var cryptoRand struct {
	mu       *sync.Mutex // the lock cryptotest's reader takes
	src      *randv2.ChaCha8
	pristine randv2.ChaCha8
}

// SetCryptoSource sets the stream every execution restarts (nil: none).
func SetCryptoSource(mu *sync.Mutex, src *randv2.ChaCha8) {
	cryptoRand.mu, cryptoRand.src = mu, src
	if src != nil {
		mu.Lock()
		cryptoRand.pristine = *src
		mu.Unlock()
	}
}

// resetCryptoRand restarts the stream for a new execution.
func resetCryptoRand() {
	if cryptoRand.src == nil {
		return
	}
	cryptoRand.mu.Lock()
	*cryptoRand.src = cryptoRand.pristine
	cryptoRand.mu.Unlock()
}

// splitmix64 spreads consecutive counts over the bits of a seed.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func init() {
	// maphash.Seed is one uint64 (its field s): a seed set in place must
	// hash as a seed of that value does, the same every time.
	var a, b maphash.Seed
	*(*uint64)(unsafe.Pointer(&a)) = 12345
	*(*uint64)(unsafe.Pointer(&b)) = 12345
	if unsafe.Sizeof(a) != 8 || maphash.String(a, "x") != maphash.String(b, "x") || maphash.String(a, "x") == maphash.String(maphash.MakeSeed(), "x") {
		panic("xbtest: hash/maphash.Seed is no longer one uint64: MaphashMakeSeed must change")
	}
}
