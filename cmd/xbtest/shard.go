package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/xbtest/xbtest/result"
)

// Sharding: -shard i/n, or the test-sharding environment of the engine
// that runs xbtest: Bazel's (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX, and
// TEST_SHARD_STATUS_FILE, which a test that shards must touch) and
// Kubernetes Indexed Jobs' (JOB_COMPLETION_INDEX, with the count from
// -shard-count or XBTEST_SHARD_COUNT: the Job's completions are not in the
// pod's environment). A flag overrides the environment; values that
// contradict each other are an error.

const (
	envBazelTotal  = "TEST_TOTAL_SHARDS"
	envBazelIndex  = "TEST_SHARD_INDEX"
	envBazelStatus = "TEST_SHARD_STATUS_FILE"
	envJobIndex    = "JOB_COMPLETION_INDEX"
	envShardCount  = "XBTEST_SHARD_COUNT"
)

// shardSpec resolves the shard from the flags (flag: -shard's text,
// count: -shard-count, 0 when not given) and the environment (getenv).
func shardSpec(flag string, count int, getenv func(string) string) (result.Shard, error) {
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
	if t := getenv(envBazelTotal); t != "" {
		n, err1 := strconv.Atoi(t)
		i, err2 := strconv.Atoi(getenv(envBazelIndex))
		if err1 != nil || err2 != nil {
			return result.Shard{}, fmt.Errorf("%s=%q and %s=%q: want two integers", envBazelTotal, t, envBazelIndex, getenv(envBazelIndex))
		}
		sh := result.Shard{Index: i, Count: n}
		if err := sh.Check(); err != nil {
			return sh, fmt.Errorf("%s=%d, %s=%d: %v", envBazelTotal, n, envBazelIndex, i, err)
		}
		found, from = append(found, sh), append(from, envBazelTotal+"/"+envBazelIndex)
	}
	if j := getenv(envJobIndex); j != "" {
		i, err := strconv.Atoi(j)
		if err != nil {
			return result.Shard{}, fmt.Errorf("%s=%q: want an integer", envJobIndex, j)
		}
		n := count
		if n == 0 {
			c := getenv(envShardCount)
			if c == "" {
				return result.Shard{}, fmt.Errorf("%s=%d is set but not the number of shards: pass -shard-count n or set %s (the Job's completions)", envJobIndex, i, envShardCount)
			}
			if n, err = strconv.Atoi(c); err != nil {
				return result.Shard{}, fmt.Errorf("%s=%q: want an integer", envShardCount, c)
			}
		}
		sh := result.Shard{Index: i, Count: n}
		if err := sh.Check(); err != nil {
			return sh, fmt.Errorf("%s=%d with %d shards: %v", envJobIndex, i, n, err)
		}
		found, from = append(found, sh), append(from, envJobIndex)
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
		return result.Shard{}, fmt.Errorf("-shard-count %d: which shard this is comes from -shard i/n or %s", count, envJobIndex)
	}
	return result.Shard{}, nil
}

// touchShardStatus tells Bazel that the test shards (it fails a sharded
// test that does not touch the file).
func touchShardStatus(getenv func(string) string) error {
	path := getenv(envBazelStatus)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %v", envBazelStatus, err)
	}
	return f.Close()
}

// shardOf is the run's shard, nil for a whole run.
func (o *options) shardOf() *result.Shard {
	if !o.shard.Active() {
		return nil
	}
	return &o.shard
}
