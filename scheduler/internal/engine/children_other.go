//go:build !linux

package engine

// descendantsCPU is not measured without Linux's /proc.
func descendantsCPU() (int64, bool) { return 0, false }
