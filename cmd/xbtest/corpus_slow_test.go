package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// BenchmarkCorpusSlowCells explores the manifest's cells that are over
// CI's budget (the entries with "slow": the copy-phase protocols of
// corpus/gc under TSO and PSO, whose schedules run to hundreds of
// thousands) and checks their verdicts as TestCorpus does, one
// sub-benchmark per configuration. Run it with
//
//	go test -run '^$' -bench CorpusSlowCells -benchtime 1x -timeout 0 ./cmd/xbtest
func BenchmarkCorpusSlowCells(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "corpus", "manifest.json"))
	if err != nil {
		b.Fatal(err)
	}
	var m struct{ Entries []manifestEntry }
	if err := json.Unmarshal(raw, &m); err != nil {
		b.Fatalf("manifest: %v", err)
	}
	groups := map[string][]*manifestEntry{}
	for i := range m.Entries {
		if e := &m.Entries[i]; e.Slow != "" {
			groups[e.group()] = append(groups[e.group()], e)
		}
	}
	flags := make([]string, 0, len(groups))
	for f := range groups {
		flags = append(flags, f)
	}
	sort.Strings(flags)
	b.Chdir(root)
	for _, f := range flags {
		b.Run(f, func(b *testing.B) {
			for range b.N {
				checkGroup(b, f, groups[f])
			}
		})
	}
}
