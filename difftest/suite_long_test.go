//go:build long

package difftest

// longSuite is true under go test -tags long: TestDifferentialLong runs.
const longSuite = true
