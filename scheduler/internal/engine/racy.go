package engine

import (
	"sync"
	"sync/atomic"
)

// Races by design. Lock-free code reads and writes shared words with plain
// loads and stores on purpose; under the Go memory model those are data
// races, and reporting them is right, but as findings they would drown
// the verdict the program is tested for. A variable or field whose
// declaration carries the directive
//
//	//xbtest:racy <reason>
//
// (in its doc comment or at the end of its line) races by design. The
// rewriter registers its access sites (RegisterRacy), and then:
//
//   - a race involving one of them is no finding: the test's notes list it
//     once, with the reason (as -v and -json's summary show);
//   - each of its accesses is a scheduling point even at -granularity
//     sync: such a variable is accessed without synchronization by
//     definition, and ExitBlock's premise (every shared access is inside
//     an atomic block the synchronization delimits) does not hold for it.
//     So -memory sc means sequential consistency at the granularity of the
//     racy accesses, the other accesses staying at synchronization
//     granularity: exactly the interleavings a sequentially consistent
//     machine allows, since an access that races with nothing commutes
//     with the other goroutines' blocks (see noteUnprotected, package races).
//     Without the directive, a racy protocol at sync granularity would run
//     each goroutine's loads and stores between two synchronization
//     operations as one block, and pass trivially.
//
// A race on a variable without the directive is still a finding.

var racySites struct {
	sync.Mutex
	reasons []string // by Pos; "" for an ordinary site
	pub     atomic.Pointer[[]string]
}

// RegisterRacy marks the access sites base+offsets[i] as racy by design,
// for reasons[i], and returns base.
func RegisterRacy(base Pos, offsets []int32, reasons []string) Pos {
	racySites.Lock()
	defer racySites.Unlock()
	rs := append([]string(nil), racySites.reasons...)
	for i, o := range offsets {
		p := int(base) + int(o)
		for len(rs) <= p {
			rs = append(rs, "")
		}
		rs[p] = reasons[i]
		if rs[p] == "" {
			rs[p] = "racy by design"
		}
	}
	racySites.reasons = rs
	racySites.pub.Store(&rs)
	return base
}

// racyReason returns why the access site p races by design, or "".
func racyReason(p Pos) string {
	rs := racySites.pub.Load()
	if rs == nil || int(p) >= len(*rs) {
		return ""
	}
	return (*rs)[p]
}
