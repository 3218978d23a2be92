package asmlib

// Add adds, in assembly.
func Add(a, b int64) int64
