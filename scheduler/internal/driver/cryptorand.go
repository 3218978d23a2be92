package driver

import (
	cryptorand "crypto/rand"
	randv2 "math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"testing/cryptotest"
	"unsafe"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
)

// fixCryptoRand makes crypto/rand, and the randomness the crypto packages
// draw on their own, one fixed stream for the duration of t, as
// testing/cryptotest.SetGlobalRandom does for a test, and hands the
// stream to the engine, which restarts it at every execution (see the
// engine's cryptoRand). It reports whether it could: a build against the
// Go Cryptographic Module v1.0.0 has no such hook, and the reader's layout
// (a sync.Mutex and the *rand.ChaCha8 it guards) is checked, not assumed.
func fixCryptoRand(t *testing.T) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	cryptotest.SetGlobalRandom(t, 0)
	v := reflect.ValueOf(cryptorand.Reader)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	typ := v.Elem().Type()
	mu, ok1 := typ.FieldByName("Mutex")
	src, ok2 := typ.FieldByName("r")
	if !ok1 || !ok2 || mu.Type != reflect.TypeFor[sync.Mutex]() || src.Type != reflect.TypeFor[*randv2.ChaCha8]() {
		return false
	}
	base := v.UnsafePointer()
	engine.SetCryptoSource((*sync.Mutex)(unsafe.Add(base, mu.Offset)), *(**randv2.ChaCha8)(unsafe.Add(base, src.Offset)))
	t.Cleanup(func() { engine.SetCryptoSource(nil, nil) }) // before cryptotest's own, which restores crypto/rand
	return true
}
