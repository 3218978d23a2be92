package claims

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Two openers of one file share its slots: the first claim wins, asking
// again gives the same answer, and the count of schedules is one.
func TestTableShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.0")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !a.Claim(5, 0) || b.Claim(5, 1) || !a.Claim(5, 0) || b.Owner(5) != 0 {
		t.Errorf("slot 5: claimed by member 0 first; owner %d", b.Owner(5))
	}
	if !b.Claim(6, 1) || a.Claim(6, 0) || a.Owner(6) != 1 || a.Owner(7) != -1 {
		t.Errorf("slot 6: claimed by member 1 first; owners %d %d", a.Owner(6), a.Owner(7))
	}
	if a.Claim(Slots, 1) || !b.Claim(Slots+3, 0) {
		t.Error("slots past the table are member 0's")
	}
	a.AddSchedules(3)
	if n := b.AddSchedules(4); n != 7 || ReadSchedules(path) != 7 || a.Schedules() != 7 {
		t.Errorf("schedules: %d, read %d; want 7", n, ReadSchedules(path))
	}
	if ReadSchedules(filepath.Join(t.TempDir(), "none")) != 0 {
		t.Error("no file: 0 schedules")
	}
}

// A test belongs to the first member that claims it, also when many
// claim it at once; asking again gives the same answer.
func TestClaimTest(t *testing.T) {
	dir := t.TempDir()
	for _, test := range []string{"TestA", "TestB/sub"} {
		owners := make(chan int, 8)
		var wg sync.WaitGroup
		for m := range 8 {
			wg.Go(func() {
				ok, err := ClaimTest(dir, test, m)
				if err != nil {
					t.Error(err)
				}
				if ok {
					owners <- m
				}
			})
		}
		wg.Wait()
		close(owners)
		var got []int
		for m := range owners {
			got = append(got, m)
		}
		if len(got) != 1 {
			t.Fatalf("%s: owners %v; want one", test, got)
		}
		for m := range 8 {
			if ok, err := ClaimTest(dir, test, m); err != nil || ok != (m == got[0]) {
				t.Errorf("%s: member %d asks again: %v, %v; the owner is %d", test, m, ok, err, got[0])
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files left in the directory; want the two claims", len(ents))
	}
}
