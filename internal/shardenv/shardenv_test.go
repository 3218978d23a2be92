package shardenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xbtest/xbtest/result"
)

func TestResolve(t *testing.T) {
	cases := []struct {
		flag  string
		count int
		env   map[string]string
		want  result.Shard
		err   string // a substring of the error; "" for none
	}{
		{want: result.Shard{}},
		{flag: "1/3", want: result.Shard{Index: 1, Count: 3}},
		{flag: "1/3", env: map[string]string{EnvBazelTotal: "4", EnvBazelIndex: "0"}, want: result.Shard{Index: 1, Count: 3}}, // the flag wins
		{flag: "1/3", count: 4, err: "disagree"},
		{flag: "3/3", err: "must be in [0, 3)"},
		{flag: "x", err: "want i/n"},
		{env: map[string]string{EnvBazelTotal: "4", EnvBazelIndex: "2"}, want: result.Shard{Index: 2, Count: 4}},
		{env: map[string]string{EnvBazelTotal: "4", EnvBazelIndex: "4"}, err: "must be in [0, 4)"},
		{env: map[string]string{EnvBazelTotal: "4"}, err: "want two integers"},
		{env: map[string]string{EnvJobIndex: "1", EnvShardCount: "2"}, want: result.Shard{Index: 1, Count: 2}},
		{env: map[string]string{EnvJobIndex: "1", EnvShardCount: "2"}, count: 3, want: result.Shard{Index: 1, Count: 3}}, // -shard-count over XBTEST_SHARD_COUNT
		{env: map[string]string{EnvJobIndex: "1"}, err: "pass -shard-count n or set XBTEST_SHARD_COUNT"},
		{env: map[string]string{EnvJobIndex: "1", EnvBazelTotal: "2", EnvBazelIndex: "0", EnvShardCount: "2"}, err: "says 1/2"},
		{env: map[string]string{EnvJobIndex: "1", EnvBazelTotal: "2", EnvBazelIndex: "1", EnvShardCount: "2"}, want: result.Shard{Index: 1, Count: 2}},
		{env: map[string]string{EnvBazelTotal: "2", EnvBazelIndex: "1"}, count: 3, err: "-shard-count 3"},
		{count: 3, err: "which shard this is"},
	}
	for _, c := range cases {
		got, err := Resolve(c.flag, c.count, func(k string) string { return c.env[k] })
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q %d %v: %v", c.flag, c.count, c.env, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q %d %v: error %v, want one saying %q", c.flag, c.count, c.env, err, c.err)
		case c.err == "" && got != c.want:
			t.Errorf("%q %d %v: shard %v, want %v", c.flag, c.count, c.env, got, c.want)
		}
	}
}

func TestTouchStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	if err := TouchStatus(func(k string) string { return map[string]string{EnvBazelStatus: path}[k] }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("%s not touched: %v", EnvBazelStatus, err)
	}
	if err := TouchStatus(func(string) string { return "" }); err != nil {
		t.Errorf("without %s: %v", EnvBazelStatus, err)
	}
}
