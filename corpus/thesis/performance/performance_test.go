package performance

import (
	"os"
	"testing"
)

// The tests are named TestPerformance_N_L after the thesis's "Performance N L"
// rows of Tables 4.1 and 4.2: N goroutines, L locks each.
//
// Each test calls Run and returns without waiting for the goroutines it
// started. This is deliberate: in Figure 4.1 the main thread only starts the
// threads and dies, and the schedule counts of the thesis (section 2.4.1 and
// Tables 4.1 and 4.2) assume exactly that. Waiting, with a sync.WaitGroup or
// otherwise, would add synchronization of the test goroutine with every
// worker and change the number of schedules, so they could no longer be
// compared with the thesis. The goroutines never block for long and always
// finish, so nothing leaks: under xbtest a run ends when every goroutine has
// exited; under plain go test they finish shortly after the test returns.

func TestPerformance_2_1(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(2, 1)
}

func TestPerformance_2_2(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(2, 2)
}

func TestPerformance_2_3(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(2, 3)
}

func TestPerformance_3_1(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(3, 1)
}

func TestPerformance_3_2(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(3, 2)
}

func TestPerformance_3_3(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(3, 3)
}

func TestPerformance_4_2(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(4, 2)
}

func TestPerformance_4_3(t *testing.T) {
	if os.Getenv("XBTEST") == "" {
		t.Skip("corpus test: run it under xbtest (go run ./cmd/xbtest ./corpus/thesis/...)")
	}
	Run(4, 3)
}
