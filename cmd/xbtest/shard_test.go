package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/internal/shardenv"
	"github.com/xbtest/xbtest/result"
	"github.com/xbtest/xbtest/settings"
)

// TestShardedRunMerges runs two shards of a corpus package as Bazel runs a
// sharded test (its environment), and merges their -json output: the
// schedules and findings are the manifest's, which one process reaches;
// without one of the shards the merge fails and names it.
func TestShardedRunMerges(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "corpus", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Entries []manifestEntry }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	tests := []string{"TestSelectServedFirst", "TestSelectServedFirstFixed"}
	wantSchedules, wantKinds := 0, []string(nil)
	for _, e := range m.Entries {
		if e.Package == "./corpus/gosync" && slices.Contains(tests, e.Test) && e.group() == group(settings.Default()) {
			wantSchedules += e.Schedules
			wantKinds = append(wantKinds, e.Kinds...)
		}
	}
	if wantSchedules == 0 {
		t.Fatal("the manifest pins no schedule counts for the tests")
	}
	t.Chdir(root)
	dir := t.TempDir()
	var streams []string
	for i := range 2 {
		status := filepath.Join(dir, "status"+strconv.Itoa(i))
		t.Setenv(shardenv.EnvBazelTotal, "2")
		t.Setenv(shardenv.EnvBazelIndex, strconv.Itoa(i))
		t.Setenv(shardenv.EnvBazelStatus, status)
		var out, errOut bytes.Buffer
		code := run([]string{"-json", "-parallel", "1", "-o", filepath.Join(dir, "out"+strconv.Itoa(i)), "-run", "^TestSelectServedFirst(Fixed)?$", "./corpus/gosync"}, &out, &errOut)
		if code == exitError {
			t.Fatalf("shard %d: exit status %d\n%s", i, code, errOut.String())
		}
		if _, err := os.Stat(status); err != nil {
			t.Errorf("shard %d did not touch %s: %v", i, shardenv.EnvBazelStatus, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if ev, err := result.DecodeEvent([]byte(l)); err == nil {
				if s, ok := ev.(*result.SummaryEvent); ok && s.Shard != strconv.Itoa(i)+"/2" {
					t.Errorf("shard %d: summary of %s says shard %q", i, s.Test, s.Shard)
				}
			}
		}
		stream := filepath.Join(dir, "shard"+strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(stream, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		streams = append(streams, stream)
	}
	os.Unsetenv(shardenv.EnvBazelTotal)
	os.Unsetenv(shardenv.EnvBazelIndex)
	os.Unsetenv(shardenv.EnvBazelStatus)

	var out, errOut bytes.Buffer
	code := run([]string{"merge", "-json", dir}, &out, &errOut)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	ev, err := result.DecodeEvent([]byte(lines[len(lines)-1]))
	total, ok := ev.(*result.TotalEvent)
	if err != nil || !ok {
		t.Fatalf("merge: exit status %d, no total\n%s\n%s", code, out.String(), errOut.String())
	}
	var kinds []string
	for k, n := range total.Findings {
		for range n {
			kinds = append(kinds, k)
		}
	}
	if code != exitFindings || total.Tests != 2 || total.Complete != 2 || total.Schedules != wantSchedules || !slices.Equal(slices.Sorted(slices.Values(kinds)), slices.Sorted(slices.Values(wantKinds))) {
		t.Errorf("merge: exit status %d, %d tests (%d complete), %d schedules, findings %v; want 1, 2 (2), %d, %v\n%s", code, total.Tests, total.Complete, total.Schedules, kinds, wantSchedules, wantKinds, errOut.String())
	}
	if !strings.Contains(out.String(), `"replay":"`+filepath.Join(dir, "out")) {
		t.Errorf("merge: the finding names no shard's schedule file:\n%s", out.String())
	}

	out.Reset()
	errOut.Reset()
	if code := run([]string{"merge", streams[0]}, &out, &errOut); code != exitError || !strings.Contains(errOut.String(), "shard 1/2 missing") {
		t.Errorf("merge of shard 0 alone: exit status %d, stderr %q; want 2 and shard 1/2 named missing", code, errOut.String())
	}
}
