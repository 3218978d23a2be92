package result

import (
	"fmt"
	"slices"
	"strings"
)

// MergeShards combines the results of the shards of one test's
// exploration into the result of part want of it (the zero Shard: the
// whole tree). The parts are shards i of N, for every i that is
// want.Index modulo want.Count (N a multiple of want.Count): the -parallel
// workers of shard want, or all N shards. Each must be there exactly once;
// the error names those missing. Schedules, aborted attempts and each
// finding's count add up; findings are merged by Key, and the one kept is
// the earliest of its shard.
func MergeShards(parts []*Result, want Shard) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	if parts[0].Shard == nil {
		if len(parts) == 1 && !want.Active() {
			return parts[0], nil
		}
		return nil, fmt.Errorf("%s: a result that is no shard cannot be merged with others", parts[0].Test)
	}
	m := max(want.Count, 1)
	n := parts[0].Shard.Count
	if n%m != 0 {
		return nil, fmt.Errorf("%s: shards of %d cannot make up shard %s", parts[0].Test, n, want)
	}
	byIndex := make(map[int]*Result, len(parts))
	for _, p := range parts {
		s := p.Shard
		switch {
		case s == nil:
			return nil, fmt.Errorf("%s: a result that is no shard cannot be merged with shards", p.Test)
		case s.Count != n:
			return nil, fmt.Errorf("%s: shard %s does not belong with shards of %d", p.Test, s, n)
		case s.Cut != parts[0].Shard.Cut:
			return nil, fmt.Errorf("%s: shard %s split the tree at another depth (%d) than shard %s (%d)", p.Test, s, s.Cut, parts[0].Shard, parts[0].Shard.Cut)
		case s.Index%m != want.Index%m:
			return nil, fmt.Errorf("%s: shard %s is not part of shard %s", p.Test, s, want)
		case byIndex[s.Index] != nil:
			return nil, fmt.Errorf("%s: shard %s given twice", p.Test, s)
		}
		byIndex[s.Index] = p
	}
	var missing []string
	var sorted []*Result
	for i := want.Index % m; i < n; i += m {
		if p := byIndex[i]; p != nil {
			sorted = append(sorted, p)
		} else {
			missing = append(missing, Shard{Index: i, Count: n}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: shard %s missing", parts[0].Test, strings.Join(missing, ", "))
	}
	var shard *Shard
	if want.Active() {
		w := want
		w.Cut = parts[0].Shard.Cut
		shard = &w
	}
	return addUp(sorted, shard), nil
}

// MergeTeam combines the results of the members of a -parallel team that
// explored one part of a test's tree together (RunConfig.Team): each
// member's part is the parts of the tree it claimed, so they add up as
// shards do (MergeShards), and the result says what each did (Team).
// Every member must have explored the same part (Shard).
func MergeTeam(members []*Result) (*Result, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	for _, p := range members[1:] {
		if (p.Shard == nil) != (members[0].Shard == nil) || p.Shard != nil && *p.Shard != *members[0].Shard {
			return nil, fmt.Errorf("%s: members of a team explored different parts (%v and %v)", p.Test, p.Shard, members[0].Shard)
		}
	}
	out := addUp(members, members[0].Shard)
	out.Team = nil
	for _, p := range members {
		out.Team = append(out.Team, p.Team...)
	}
	return out, nil
}

// addUp adds up the results of parts of one test's tree (sorted: the
// order that decides which of equal findings is kept) into the result of
// part shard (nil: the whole tree).
func addUp(sorted []*Result, shard *Shard) *Result {
	out := *sorted[0]
	out.Findings, out.Warnings, out.Notes = nil, nil, nil
	out.Schedules, out.Aborted, out.Left, out.Depth, out.Elapsed = 0, 0, 0, 0, 0
	out.Complete, out.Bound, out.Internal, out.ShardLearnt = true, "", "", ""
	out.Shard = shard
	seen := map[string]*Finding{}
	var internal []string
	for _, p := range sorted {
		out.Schedules += p.Schedules
		out.Aborted += p.Aborted
		out.Left += p.Left
		out.Depth = max(out.Depth, p.Depth)
		out.Elapsed = max(out.Elapsed, p.Elapsed)
		out.Skipped = out.Skipped || p.Skipped
		if !p.Complete && !p.Skipped {
			out.Complete = false
			if out.Bound == "" {
				out.Bound = p.BoundOf()
			}
		}
		if p.Internal != "" && !slices.Contains(internal, p.Internal) {
			internal = append(internal, p.Internal)
		}
		out.Warnings = appendNew(out.Warnings, p.Warnings...)
		out.Notes = appendNew(out.Notes, p.Notes...)
		if p.ShardLearnt != "" {
			out.Complete, out.Bound = false, BoundShards
			out.Warnings = append(out.Warnings, fmt.Sprintf("shard %s: %s; the shards' parts are not one exploration (explore this test without -shard)", p.Shard, p.ShardLearnt))
		}
		for _, f := range p.Findings {
			k := f.Key
			if k == "" {
				k = string(f.Kind) + "|" + f.Pos + "|" + f.Message
			}
			if g := seen[k]; g != nil {
				g.Count += f.Count
				continue
			}
			g := *f
			seen[k] = &g
			out.Findings = append(out.Findings, &g)
		}
	}
	out.Internal = strings.Join(internal, "\n")
	slices.SortStableFunc(out.Findings, func(a, b *Finding) int { return a.Schedule - b.Schedule })
	return &out
}

func appendNew(to []string, from ...string) []string {
	for _, s := range from {
		if !slices.Contains(to, s) {
			to = append(to, s)
		}
	}
	return to
}
