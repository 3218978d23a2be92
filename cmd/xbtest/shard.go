package main

import "github.com/xbtest/xbtest/result"

// shardOf is the run's shard (-shard, or the environment:
// internal/shardenv), nil for a whole run.
func (o *options) shardOf() *result.Shard {
	if !o.shard.Active() {
		return nil
	}
	return &o.shard
}
