// Package shardenv finds which shard of a sharded run this process is:
// from -shard i/n, or from the test-sharding environment of the engine
// that runs it. The command reads it (cmd/xbtest); the tests that run
// shards as separate processes read it the same way.
package shardenv

import (
	"fmt"
	"os"
	"strconv"

	"github.com/xbtest/xbtest/result"
)

// The environment variables it reads: Bazel's (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX, and
// TEST_SHARD_STATUS_FILE, which a test that shards must touch) and
// Kubernetes Indexed Jobs' (JOB_COMPLETION_INDEX, with the count from
// -shard-count or XBTEST_SHARD_COUNT: the Job's completions are not in the
// pod's environment). A flag overrides the environment; values that
// contradict each other are an error.

const (
	EnvBazelTotal  = "TEST_TOTAL_SHARDS"
	EnvBazelIndex  = "TEST_SHARD_INDEX"
	EnvBazelStatus = "TEST_SHARD_STATUS_FILE"
	EnvJobIndex    = "JOB_COMPLETION_INDEX"
	EnvShardCount  = "XBTEST_SHARD_COUNT"
)

// Resolve resolves the shard from the flags (flag: -shard's text,
// count: -shard-count, 0 when not given) and the environment (getenv).
func Resolve(flag string, count int, getenv func(string) string) (result.Shard, error) {
	if count < 0 {
		return result.Shard{}, fmt.Errorf("-shard-count %d: must be at least 1", count)
	}
	if flag != "" {
		sh, err := result.ParseShard(flag)
		if err != nil {
			return sh, fmt.Errorf("-shard: %v", err)
		}
		if count > 0 && count != sh.Count {
			return sh, fmt.Errorf("-shard %s and -shard-count %d disagree", flag, count)
		}
		return sh, nil
	}
	var found []result.Shard
	var from []string
	if t := getenv(EnvBazelTotal); t != "" {
		n, err1 := strconv.Atoi(t)
		i, err2 := strconv.Atoi(getenv(EnvBazelIndex))
		if err1 != nil || err2 != nil {
			return result.Shard{}, fmt.Errorf("%s=%q and %s=%q: want two integers", EnvBazelTotal, t, EnvBazelIndex, getenv(EnvBazelIndex))
		}
		sh := result.Shard{Index: i, Count: n}
		if err := sh.Check(); err != nil {
			return sh, fmt.Errorf("%s=%d, %s=%d: %v", EnvBazelTotal, n, EnvBazelIndex, i, err)
		}
		found, from = append(found, sh), append(from, EnvBazelTotal+"/"+EnvBazelIndex)
	}
	if j := getenv(EnvJobIndex); j != "" {
		i, err := strconv.Atoi(j)
		if err != nil {
			return result.Shard{}, fmt.Errorf("%s=%q: want an integer", EnvJobIndex, j)
		}
		n := count
		if n == 0 {
			c := getenv(EnvShardCount)
			if c == "" {
				return result.Shard{}, fmt.Errorf("%s=%d is set but not the number of shards: pass -shard-count n or set %s (the Job's completions)", EnvJobIndex, i, EnvShardCount)
			}
			if n, err = strconv.Atoi(c); err != nil {
				return result.Shard{}, fmt.Errorf("%s=%q: want an integer", EnvShardCount, c)
			}
		}
		sh := result.Shard{Index: i, Count: n}
		if err := sh.Check(); err != nil {
			return sh, fmt.Errorf("%s=%d with %d shards: %v", EnvJobIndex, i, n, err)
		}
		found, from = append(found, sh), append(from, EnvJobIndex)
	}
	switch {
	case len(found) == 2 && found[0] != found[1]:
		return result.Shard{}, fmt.Errorf("%s say shard %s, %s says %s", from[0], found[0], from[1], found[1])
	case len(found) > 0:
		if count > 0 && count != found[0].Count {
			return result.Shard{}, fmt.Errorf("%s say %d shards, -shard-count %d", from[0], found[0].Count, count)
		}
		return found[0], nil
	case count > 0:
		return result.Shard{}, fmt.Errorf("-shard-count %d: which shard this is comes from -shard i/n or %s", count, EnvJobIndex)
	}
	return result.Shard{}, nil
}

// TouchStatus tells Bazel that the test shards (it fails a sharded
// test that does not touch the file).
func TouchStatus(getenv func(string) string) error {
	path := getenv(EnvBazelStatus)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %v", EnvBazelStatus, err)
	}
	return f.Close()
}
