package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// Configs are the explorers checked against the reference: every -algo,
// and -sync-deps both ways where it matters (it only changes ExitBlock-RW's
// read/write sets).
var Configs = []Config{
	{Algo: settings.ExitBlock, SyncDeps: true},
	{Algo: settings.ExitBlockDD, SyncDeps: true},
	{Algo: settings.ExitBlockRW, SyncDeps: true},
	{Algo: settings.ExitBlockRW, SyncDeps: false},
	{Algo: settings.ExitBlockRWDD, SyncDeps: true},
	{Algo: settings.ExitBlockRWDD, SyncDeps: false},
}

// RefMaxSchedules bounds the reference's exploration of one program; a
// program whose tree is larger is not compared (counted as too big).
const RefMaxSchedules = 5000

// Divergence is a program on which an explorer does not reach what the
// reference reaches (or reaches what it does not).
type Divergence struct {
	Seed   int64
	Config Config
	What   string // missed-outcome, impossible-outcome, missed-finding, extra-finding, problem
	Detail string
}

func (d Divergence) String() string {
	return fmt.Sprintf("seed %d %v: %s: %s", d.Seed, d.Config, d.What, d.Detail)
}

// Stats counts what a check did.
type Stats struct {
	Programs    int     // generated and compared
	TooBig      int     // the reference did not finish within RefMaxSchedules
	Racy        int     // compared against the access-granularity reference
	RacyUnmeant []int64 // of them, programs not generated to race
	Outcomes    int     // reference outcomes (and findings) compared, summed over programs and configs
	RefScheds   int     // schedules the reference explored
	Schedules   map[string]int
	Divergences []Divergence
	Build, Run  time.Duration
}

// Check generates the programs of seeds, builds them in dir, explores each
// under the reference and under every configuration, and compares.
func Check(ctx context.Context, dir string, seeds []int64) (*Stats, error) {
	st := &Stats{Schedules: map[string]int{}}
	progs := make([]*Program, len(seeds))
	byName := map[string]*Program{}
	for i, s := range seeds {
		progs[i] = Generate(s)
		byName[progs[i].Name] = progs[i]
	}
	t0 := time.Now()
	bin, err := Build(ctx, dir, progs)
	if err != nil {
		return nil, err
	}
	st.Build = time.Since(t0)
	t0 = time.Now()
	defer func() { st.Run = time.Since(t0) }()

	ref, err := bin.Run(ctx, dir, Config{Algo: settings.Brute, SyncDeps: true}, RefMaxSchedules, nil)
	if err != nil {
		return nil, err
	}
	// Programs that race (on purpose, or as the reference finds) are
	// compared against every interleaving of their accesses.
	var racy []string
	for _, p := range progs {
		if r := ref[p.Name]; p.Racy || r.Raced() {
			racy = append(racy, p.Name)
			if !p.Racy {
				st.RacyUnmeant = append(st.RacyUnmeant, p.Seed)
			}
		}
	}
	if len(racy) > 0 {
		acc, err := bin.Run(ctx, dir, Config{Algo: settings.Brute, SyncDeps: true, Access: true}, RefMaxSchedules, racy)
		if err != nil {
			return nil, err
		}
		maps.Copy(ref, acc)
		st.Racy = len(racy)
	}
	compared := map[string]bool{}
	for _, p := range progs {
		r := ref[p.Name]
		switch {
		case r.Problem != "":
			st.Divergences = append(st.Divergences, Divergence{Seed: p.Seed, Config: Config{Algo: settings.Brute}, What: "problem", Detail: r.Problem})
		case !r.Complete:
			st.TooBig++
		default:
			compared[p.Name] = true
			st.RefScheds += r.Schedules
		}
	}
	st.Programs = len(compared)
	names := slices.Sorted(maps.Keys(compared))
	if len(names) == 0 {
		return st, nil
	}
	for _, c := range Configs {
		got, err := bin.Run(ctx, dir, c, 0, names)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			p, g := byName[n], got[n]
			st.Schedules[c.String()] += g.Schedules
			st.Outcomes += len(ref[n].Outcomes) + len(ref[n].Findings)
			st.Divergences = append(st.Divergences, Compare(p, c, ref[n], g)...)
		}
	}
	return st, nil
}

// Compare checks what configuration c reached on p against the reference.
func Compare(p *Program, c Config, ref, got *Result) []Divergence {
	var ds []Divergence
	add := func(what, detail string) {
		ds = append(ds, Divergence{Seed: p.Seed, Config: c, What: what, Detail: detail})
	}
	if got.Problem != "" {
		add("problem", got.Problem)
		return ds
	}
	if !got.Complete {
		add("problem", "exploration incomplete without a bound")
	}
	// No explorer reaches what no schedule does.
	if extra := minus(got.Outcomes, ref.Outcomes); len(extra) > 0 {
		add("impossible-outcome", fmt.Sprintf("%v not reached by the reference (%v)", extra, keys(ref.Outcomes)))
	}
	if got.Raced() {
		// The locking discipline does not hold: ExitBlock promises no
		// more than the report of the race.
		return ds
	}
	if miss := minus(ref.Outcomes, got.Outcomes); len(miss) > 0 {
		add("missed-outcome", fmt.Sprintf("%v missed, no race reported (reached %v)", miss, keys(got.Outcomes)))
	}
	a := c.Algo
	want, have := detectable(ref.Findings, a), detectable(got.Findings, a)
	if miss := minus(want, have); len(miss) > 0 {
		add("missed-finding", fmt.Sprintf("%v missed (found %v)", miss, keys(have)))
	}
	if extra := minus(have, want); len(extra) > 0 {
		add("extra-finding", fmt.Sprintf("%v not found by the reference (%v)", extra, keys(want)))
	}
	return ds
}

// detectable returns the findings an algorithm a reports, as strings:
// deadlocks and leaks only under deadlock detection.
func detectable(fs map[Finding]bool, a settings.Algorithm) map[string]bool {
	out := map[string]bool{}
	for f := range fs {
		switch f.Kind {
		case result.LockCycle, result.Deadlock, result.Leak:
			if !a.DetectsDeadlocks() {
				continue
			}
		}
		out[f.String()] = true
	}
	return out
}

func minus[K comparable](a, b map[K]bool) []K {
	var out []K
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func keys[K comparable](m map[K]bool) string {
	var s []string
	for k := range m {
		s = append(s, fmt.Sprint(k))
	}
	sort.Strings(s)
	return "[" + strings.Join(s, " ") + "]"
}
