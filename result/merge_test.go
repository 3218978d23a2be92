package result_test

import (
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
)

// A team's members add up as shards do, keep the earliest first schedule
// of a finding, say what each did (Team, member 0 first), and must have
// explored the same part.
func TestMergeTeam(t *testing.T) {
	part := &result.Shard{Index: 1, Count: 2, Cut: 8}
	a := &result.Result{Test: "T", Schedules: 10, Aborted: 1, Complete: true, Shard: part, Team: []result.Member{{Schedules: 10, Subtrees: 4}},
		Findings: []*result.Finding{{Kind: result.Race, Key: "r", Schedule: 7, Count: 2}}}
	b := &result.Result{Test: "T", Schedules: 5, Complete: true, Shard: part, Team: []result.Member{{Schedules: 5, Subtrees: 3}},
		Findings: []*result.Finding{{Kind: result.Race, Key: "r", Schedule: 3, Count: 1}, {Kind: result.Assertion, Key: "a", Schedule: 1, Count: 1}}}
	m, err := result.MergeTeam([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Schedules != 15 || m.Aborted != 1 || !m.Complete || m.Shard == nil || *m.Shard != *part || len(m.Team) != 2 || m.Team[0].Subtrees != 4 || m.Team[1].Subtrees != 3 {
		t.Errorf("merged %+v", m)
	}
	if len(m.Findings) != 2 || m.Findings[0].Key != "a" || m.Findings[1].Key != "r" || m.Findings[1].Count != 3 || m.Findings[1].Schedule != 7 {
		t.Errorf("findings %v %v", m.Findings[0], m.Findings[1])
	}
	c := *b
	c.Shard = nil
	if _, err := result.MergeTeam([]*result.Result{a, &c}); err == nil || !strings.Contains(err.Error(), "different parts") {
		t.Errorf("members of different parts merged: %v", err)
	}
}
