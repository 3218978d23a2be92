package difftest

import (
	"os"
	"strconv"
	"testing"
)

// TestShow prints the program of XBDIFF_SHOW (a seed).
func TestShow(t *testing.T) {
	s := os.Getenv("XBDIFF_SHOW")
	if s == "" {
		t.Skip("XBDIFF_SHOW names no seed")
	}
	seed, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	p := Generate(seed)
	t.Logf("racy %v features %v ops %d\n%s", p.Racy, p.Features, p.Ops, p.Src)
}
