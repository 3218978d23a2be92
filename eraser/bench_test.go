package eraser

import "testing"

// BenchmarkAccess is the cost of one checked access: two goroutines
// alternately write 64 locations under a common lock.
func BenchmarkAccess(b *testing.B) {
	d := New(HB)
	d.Start(-1, 0)
	d.Start(0, 1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		g := int32(i>>6) & 1
		if i&63 == 0 {
			d.Hold(g, 1, true)
			d.Locked(g, 1, true)
		}
		d.Access(g, uintptr(0x1000+(i&63)*8), 8, i&1 == 0, false, 1)
		if i&63 == 63 {
			d.Unlocked(g, 1, true)
			d.Unhold(g, 1)
		}
	}
}

// BenchmarkAccessExclusive is the common case: a goroutine's own data.
func BenchmarkAccessExclusive(b *testing.B) {
	d := New(HB)
	d.Start(-1, 0)
	for i := 0; b.Loop(); i++ {
		d.Access(0, uintptr(0x1000+(i&63)*8), 8, true, false, 1)
	}
}
