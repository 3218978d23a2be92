package xt

import "testing"

// helper is shared with the external tests through export_test.go.
func helper(t testing.TB, c *Counter, want int) {
	t.Helper()
	if c.N() != want {
		t.Errorf("N = %d, want %d", c.N(), want)
	}
}

func TestXTInternal(t *testing.T) {
	var c Counter
	done := make(chan bool)
	go func() { c.Inc(); done <- true }()
	c.Inc()
	<-done
	helper(t, &c, 2)
}

func BenchmarkXT(b *testing.B) {
	var c Counter
	for i := 0; i < b.N; i++ {
		c.Inc()
	}
	helper(b, &c, b.N)
}
