//go:build !amd64

package asmlib

func Add(a, b int64) int64 { return a + b }
