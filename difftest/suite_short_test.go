//go:build !long

package difftest

// longSuite is false in go test ./...: the long differential run
// (TestDifferentialLong, 10,000 programs) runs under go test -tags long.
const longSuite = false
