package scheduler_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/shardenv"
	"github.com/xbtest/xbtest/result"
	xb "github.com/xbtest/xbtest/scheduler"
	"github.com/xbtest/xbtest/scheduler/internal/shard"
	"github.com/xbtest/xbtest/settings"
)

// Shards as separate processes, each told which it is through the
// environment the xbtest command reads (internal/shardenv): Bazel's test
// sharding variables and a Kubernetes Indexed Job's.

// shardPrograms are explored by each shard process: a thesis program, one
// with a finding, one under tso.
func shardPrograms() []struct {
	name string
	body func(*xb.T)
	cfg  xb.Config
} {
	tso := xb.DefaultConfig()
	tso.Memory = settings.TSO
	return []struct {
		name string
		body func(*xb.T)
		cfg  xb.Config
	}{
		{"perfJava 3 3", perfJava(3, 3), thesisRW()},
		{"splitSync", splitSync, xb.DefaultConfig()},
		{"splitIncrement tso", splitIncrement, tso},
	}
}

// shardOutcome is what a shard process reports of one program.
type shardOutcome struct {
	Schedules, Aborted int
	Findings           map[string]int
	Shard              *result.Shard
}

const shardChildEnv = "XBTEST_SHARD_CHILD_TEST"

// TestShardProcess is the shard process (it runs only when
// TestShardsAsProcesses starts it).
func TestShardProcess(t *testing.T) {
	if os.Getenv(shardChildEnv) == "" {
		t.Skip("a shard process of TestShardsAsProcesses")
	}
	sh, err := shardenv.Resolve("", 0, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]shardOutcome{}
	for _, p := range shardPrograms() {
		cfg := p.cfg
		cfg.Shard = sh
		res := explore(t, p.name, p.body, cfg)
		out[p.name] = shardOutcome{res.Schedules, res.Aborted, findingCounts(res), res.Shard}
	}
	b, _ := json.Marshal(out)
	fmt.Printf("SHARD %s\n", b)
}

func TestShardsAsProcesses(t *testing.T) {
	if os.Getenv(shardChildEnv) != "" {
		t.Skip("in a shard process")
	}
	whole := map[string]*result.Result{}
	for _, p := range shardPrograms() {
		whole[p.name] = explore(t, p.name, p.body, p.cfg)
	}
	for _, n := range []int{2, 3} {
		sum := map[string]*shardOutcome{}
		for i := range n {
			cmd := exec.Command(os.Args[0], "-test.run=^TestShardProcess$", "-test.count=1")
			env := []string{shardChildEnv + "=1"}
			if n == 2 { // Bazel
				env = append(env, fmt.Sprintf("%s=%d", shardenv.EnvBazelTotal, n), fmt.Sprintf("%s=%d", shardenv.EnvBazelIndex, i))
			} else { // a Kubernetes Indexed Job
				env = append(env, fmt.Sprintf("%s=%d", shardenv.EnvJobIndex, i), fmt.Sprintf("%s=%d", shardenv.EnvShardCount, n))
			}
			cmd.Env = append(os.Environ(), env...)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("shard %d/%d: %v\n%s", i, n, err, b)
			}
			_, line, ok := strings.Cut(string(b), "SHARD ")
			line, _, _ = strings.Cut(line, "\n")
			var got map[string]shardOutcome
			if !ok || json.Unmarshal([]byte(line), &got) != nil {
				t.Fatalf("shard %d/%d did not report:\n%s", i, n, b)
			}
			for name, o := range got {
				if o.Shard == nil || *o.Shard != (result.Shard{Index: i, Count: n, Cut: shard.DefaultCut}) {
					t.Errorf("%s: shard process %d/%d explored shard %v", name, i, n, o.Shard)
				}
				s := sum[name]
				if s == nil {
					s = &shardOutcome{Findings: map[string]int{}}
					sum[name] = s
				}
				s.Schedules += o.Schedules
				s.Aborted += o.Aborted
				for k, c := range o.Findings {
					s.Findings[k] += c
				}
			}
		}
		for name, w := range whole {
			s := sum[name]
			if s == nil || s.Schedules != w.Schedules || s.Aborted != w.Aborted || !maps.Equal(s.Findings, findingCounts(w)) {
				t.Errorf("%s: %d shard processes explored %+v; one process %d schedules, %d aborted, findings %v", name, n, s, w.Schedules, w.Aborted, findingCounts(w))
			}
		}
	}
}
