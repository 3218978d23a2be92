package scheduler

import (
	"hash/maphash"
	"iter"
	randv1 "math/rand"
	randv2 "math/rand/v2"

	"github.com/xbtest/xbtest/scheduler/internal/engine"
	"github.com/xbtest/xbtest/scheduler/internal/maporder"
)

// Determinism: random numbers seeded per execution and maps iterated in a
// fixed order.

// Rand returns the math/rand source of the current execution.
func Rand() *randv1.Rand { return engine.Rand() }

// RandV2 returns the math/rand/v2 source of the current execution.
func RandV2() *randv2.Rand { return engine.RandV2() }

// MaphashMakeSeed replaces maphash.MakeSeed: in an execution, the k-th seed
// made is the same in every execution.
func MaphashMakeSeed() maphash.Seed { return engine.MaphashMakeSeed() }

// SortKeys sorts map keys into the fixed order of rewritten map loops: by
// value where the type has an order (numbers, strings, and arrays, structs
// and interfaces of those, field by field); keys that only compare by
// address (pointers, channels) keep an order that depends on addresses.
func SortKeys[K comparable](keys []K) { maporder.SortKeys(keys) }

// MapsAll is maps.All in a fixed order.
func MapsAll[Map ~map[K]V, K comparable, V any](m Map) iter.Seq2[K, V] { return maporder.MapsAll(m) }

// MapsKeys is maps.Keys in a fixed order.
func MapsKeys[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[K] { return maporder.MapsKeys(m) }

// MapsValues is maps.Values in a fixed order (that of the keys).
func MapsValues[Map ~map[K]V, K comparable, V any](m Map) iter.Seq[V] { return maporder.MapsValues(m) }
