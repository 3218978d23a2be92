//go:build !xbtag

package tags

const name = "default"
